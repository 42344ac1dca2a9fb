package dev.sockstate.server.engine;

import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Closes the sockets of a listener or a client whose SO_LINGER is positive, off the workers: such a
 * close waits until the unsent data is acknowledged or the linger time is over (on Linux whether or not
 * the socket blocks), and no worker may wait that long. Each close has a thread of its own, so that one
 * dead peer delays no other close, up to {@value #MOST_THREADS} at once; a close beyond them resets its
 * connection (SO_LINGER 0) rather than wait in a queue, logged at most once a second. The threads end
 * when idle. A stop waits for the closes under way until its own deadline; any left then end within
 * their linger time, in the background.
 */
final class LingeringCloser {

    /** The most closes that wait at once. */
    static final int MOST_THREADS = 32;

    private static final Logger logger = System.getLogger(LingeringCloser.class.getName());

    private final NativeSockets sockets;

    private final ThreadPoolExecutor threads;

    private final BoundedLog overflow = new BoundedLog(logger);

    /** The closes handed over and not done; waited on by {@link #awaitClosed}. */
    private final AtomicInteger pending = new AtomicInteger();

    private final String label;

    /**
     * @param sockets the backend's sockets
     * @param threadName the name of its threads
     * @param label the listener or client, for the log
     */
    LingeringCloser(NativeSockets sockets, String threadName, String label) {
        this.sockets = sockets;
        this.label = label;
        AtomicInteger made = new AtomicInteger();
        this.threads = new ThreadPoolExecutor(0, MOST_THREADS, 10, TimeUnit.SECONDS, new SynchronousQueue<>(), (task) -> {
            Thread thread = new Thread(task, threadName + "-" + made.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** @param handle a socket, out of the server's table, to close off the calling thread */
    void close(long handle) {
        this.pending.incrementAndGet();
        try {
            this.threads.execute(() -> closeNow(handle));
        }
        catch (RejectedExecutionException ex) {
            this.overflow.warn(() -> this.label + " had " + MOST_THREADS + " closes waiting for their linger time already; reset a"
                    + " connection instead", null);
            try {
                this.sockets.setOption(handle, NativeSocketOption.LINGER, 0);
            }
            catch (NativeIoException failure) {
                // The close below still releases it.
            }
            closeNow(handle);
        }
    }

    private void closeNow(long handle) {
        try {
            this.sockets.close(handle);
        }
        catch (NativeIoException ex) {
            // The descriptor is released all the same.
        }
        finally {
            if (this.pending.decrementAndGet() == 0) {
                synchronized (this) {
                    notifyAll();
                }
            }
        }
    }

    /**
     * Waits for the closes under way, until a deadline.
     * @param deadline when to stop waiting, in {@link System#nanoTime()}
     */
    void awaitClosed(long deadline) {
        synchronized (this) {
            try {
                while (this.pending.get() > 0) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        logger.log(Level.WARNING, this.label + " still had " + this.pending.get() + " sockets closing at the end of"
                                + " the stop; they are closed in the background, each within its linger time");
                        break;
                    }
                    wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        this.threads.shutdown();
    }

    /**
     * @param linger the settings' linger, {@code null} for none
     * @param sockets the backend's sockets
     * @param threadName the name of its threads
     * @param label the listener or client, for the log
     * @return a closer where closes wait (a positive linger), {@code null} where they do not
     */
    static @Nullable LingeringCloser forLinger(@Nullable Duration linger, NativeSockets sockets, String threadName, String label) {
        return (linger != null && !linger.isZero()) ? new LingeringCloser(sockets, threadName, label) : null;
    }
}
