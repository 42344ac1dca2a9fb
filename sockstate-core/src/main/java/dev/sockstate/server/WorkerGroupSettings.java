package dev.sockstate.server;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A worker group: the threads that dequeue notifications and the ports they dequeue from. By
 * default the workers share one port, so any idle worker takes the next ready socket (the
 * reference's multi-threaded model); listeners with persistent triggers then need a group of their
 * own with one worker, or the exclusive edge mode. With a port per worker, each worker dequeues from
 * a port of its own and each socket stays on the worker whose port it was given, round-robin as it
 * is accepted (an event loop per thread): a socket's state stays in one core's cache and every
 * trigger is allowed, but one busy socket delays the others of its worker. A listener is a socket
 * too: its accepting, and the {@code onOpen} calls of the connections it accepts, run on the worker
 * of the port it was given; a TCP listener that accepts per worker ({@link AcceptMode#PER_WORKER})
 * has a listening socket on every worker's port instead, and each connection stays on the worker
 * that accepted it.
 * <p>
 * With {@code yieldBeforeWait} (off by default), a worker that served sockets yields its processor
 * once ({@link Thread#yield}) before its next dequeue that may wait: where the server's peers share
 * its processors (a proxy beside its backend), a peer it just answered that was woken onto its
 * processor can run at once, and its next request is often in when the worker looks again. Beside a
 * thread that keeps its processor busy (a collector's, the application's, another container's) the
 * yield hands that thread a whole time slice instead, and the worker's answers wait for it: off keeps
 * the latency of a server that shares its processors with other work. It never spins either way.
 *
 * @param name the group's name
 * @param workers how many threads dequeue from the group's port
 * @param batchSize the most notifications one dequeue call returns
 * @param dequeueTimeout how long one dequeue call waits before the worker loops
 * @param readBufferSize the size of each worker's read buffer in bytes
 * @param threadNamePrefix the prefix of the worker threads' names
 * @param portPerWorker whether each worker has a port of its own, with the sockets pinned to it
 * @param yieldBeforeWait whether a worker that served sockets yields its processor once before a dequeue that may wait
 */
public record WorkerGroupSettings(String name, int workers, int batchSize, Duration dequeueTimeout, int readBufferSize,
        String threadNamePrefix, boolean portPerWorker, boolean yieldBeforeWait) {

    /** The defaults: 64 notifications a call, a one-second timeout, 64 KiB read buffers. */
    public WorkerGroupSettings {
        if (name == null || name.isBlank()) {
            throw InvalidSettingException.mustBe(String.valueOf(name), Setting.GROUP_NAME, name, "a name that is not blank");
        }
        check(name, workers >= 1 && workers <= 1024, Setting.WORKERS, workers, "between 1 and 1024");
        check(name, batchSize >= 1 && batchSize <= 65_536, Setting.BATCH_SIZE, batchSize, "between 1 and 65536");
        check(name, dequeueTimeout != null && !dequeueTimeout.isNegative() && !dequeueTimeout.isZero(), Setting.DEQUEUE_TIMEOUT,
                dequeueTimeout, "positive");
        check(name, readBufferSize >= 64 && readBufferSize <= 16 * 1024 * 1024, Setting.READ_BUFFER_SIZE, readBufferSize,
                "between 64 bytes and 16 MiB");
        check(name, threadNamePrefix != null, Setting.THREAD_NAME_PREFIX, threadNamePrefix, "set");
    }

    /**
     * A group whose workers do not yield before a dequeue that may wait, as {@link #of} makes one.
     * @param name the group's name
     * @param workers how many threads dequeue from the group's port
     * @param batchSize the most notifications one dequeue call returns
     * @param dequeueTimeout how long one dequeue call waits before the worker loops
     * @param readBufferSize the size of each worker's read buffer in bytes
     * @param threadNamePrefix the prefix of the worker threads' names
     * @param portPerWorker whether each worker has a port of its own, with the sockets pinned to it
     */
    public WorkerGroupSettings(String name, int workers, int batchSize, Duration dequeueTimeout, int readBufferSize,
            String threadNamePrefix, boolean portPerWorker) {
        this(name, workers, batchSize, dequeueTimeout, readBufferSize, threadNamePrefix, portPerWorker, false);
    }

    /**
     * A group whose workers share one port.
     * @param name the group's name
     * @param workers how many threads dequeue from the group's port
     * @param batchSize the most notifications one dequeue call returns
     * @param dequeueTimeout how long one dequeue call waits before the worker loops
     * @param readBufferSize the size of each worker's read buffer in bytes
     * @param threadNamePrefix the prefix of the worker threads' names
     */
    public WorkerGroupSettings(String name, int workers, int batchSize, Duration dequeueTimeout, int readBufferSize,
            String threadNamePrefix) {
        this(name, workers, batchSize, dequeueTimeout, readBufferSize, threadNamePrefix, false);
    }

    /**
     * @param portPerWorker whether each worker has a port of its own, with the sockets pinned to it
     * @return these settings with that choice
     */
    public WorkerGroupSettings withPortPerWorker(boolean portPerWorker) {
        return new WorkerGroupSettings(this.name, this.workers, this.batchSize, this.dequeueTimeout, this.readBufferSize,
                this.threadNamePrefix, portPerWorker, this.yieldBeforeWait);
    }

    /**
     * @param yieldBeforeWait whether a worker that served sockets yields its processor once before a dequeue that may wait
     * @return these settings with that choice
     */
    public WorkerGroupSettings withYieldBeforeWait(boolean yieldBeforeWait) {
        return new WorkerGroupSettings(this.name, this.workers, this.batchSize, this.dequeueTimeout, this.readBufferSize,
                this.threadNamePrefix, this.portPerWorker, yieldBeforeWait);
    }

    /** @return how many notification ports the group opens: one, or one per worker */
    public int notificationPorts() {
        return this.portPerWorker ? this.workers : 1;
    }

    /**
     * @param name the group's name
     * @param workers its thread count
     * @return a group with the default batch size, timeout, buffer and thread names
     */
    public static WorkerGroupSettings of(String name, int workers) {
        return new WorkerGroupSettings(name, workers, 64, Duration.ofSeconds(1), 64 * 1024, "sockstate-");
    }

    private static void check(String group, boolean valid, Setting setting, @Nullable Object value, String expected) {
        if (!valid) {
            throw InvalidSettingException.mustBe(group, setting, value, expected);
        }
    }
}
