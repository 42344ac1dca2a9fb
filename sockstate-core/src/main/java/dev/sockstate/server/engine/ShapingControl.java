package dev.sockstate.server.engine;

import dev.sockstate.server.engine.turn.ServerScheduler;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.shaping.Shaping;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The traffic shaping of one listener's or one client's connections as it runs: the rates in force,
 * which {@link SocketServer#changeShaping} changes while the connections go on, the buckets all of them
 * share (the rates in all), and where the time they spent throttled is counted. Each connection
 * that is shaped has a {@link Shaper} of its own, made as it is first shaped.
 */
final class ShapingControl {

    /**
     * The longest a throttled connection waits before it looks at its share again: a change of the
     * rates (a lifted limit) reaches a connection that waits for a low one within this.
     */
    static final long LONGEST_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final ListenerObserver observer;

    private final @Nullable ServerScheduler scheduler;

    private volatile Shaping shaping;

    /** Whether any rate is set and a timer keeps it: read at each read and send, so kept apart from the rates. */
    private volatile boolean shapes;

    /** The connections' reads together, under its own lock. */
    private final TokenBucket totalRead = new TokenBucket();

    /** The connections' writes together, under its own lock. */
    private final TokenBucket totalWrite = new TokenBucket();

    /**
     * @param shaping the rates it starts with
     * @param observer where the throttled time is counted
     * @param scheduler the server's timer, which gives a throttled connection its turn back; {@code null}
     * for none (an embedded connection), which is not shaped
     */
    ShapingControl(Shaping shaping, ListenerObserver observer, @Nullable ServerScheduler scheduler) {
        this.shaping = shaping;
        this.observer = observer;
        this.scheduler = scheduler;
        this.shapes = scheduler != null && shaping.isShaping();
    }

    /** @return the rates in force */
    Shaping shaping() {
        return this.shaping;
    }

    /** @param shaping the rates from now on, for every connection, those open and those to come */
    void change(Shaping shaping) {
        this.shaping = shaping;
        this.shapes = this.scheduler != null && shaping.isShaping();
    }

    /** @return whether the connections are shaped now (there is a rate, and a timer to keep it) */
    boolean shapes() {
        return this.shapes;
    }

    /**
     * @param readWake gives a connection whose reads were throttled its turn back, to read
     * @param writeWake gives a connection whose writes were throttled its turn back, to send
     * @return the shaper of a connection
     */
    Shaper shaper(Runnable readWake, Runnable writeWake) {
        return new Shaper(this, readWake, writeWake);
    }

    /**
     * Takes bytes from the share of all the connections.
     * @param read whether they were read, or sent
     * @param bytes how many
     */
    void took(boolean read, long bytes) {
        TokenBucket bucket = read ? this.totalRead : this.totalWrite;
        synchronized (bucket) {
            bucket.take(bytes);
        }
    }

    /**
     * @param read whether for reading, or for sending
     * @param rate the rate in all, positive
     * @param level the bytes wanted: 1, or, after a connection spent what it was offered, a worthwhile amount
     * @param now the time
     * @return what the connections may move together now when it is at least the level, or else minus
     * the nanoseconds until they may move a worthwhile amount
     */
    long share(boolean read, long rate, long level, long now) {
        TokenBucket bucket = read ? this.totalRead : this.totalWrite;
        synchronized (bucket) {
            long tokens = bucket.refill(rate, now);
            if (tokens >= level) {
                return tokens;
            }
            return -Math.max(1, bucket.nanosUntil(TokenBucket.wakeLevel(rate)));
        }
    }

    /**
     * Sets a task to give a throttled connection its turn back.
     * @param wake the task
     * @param delayNanos after how long
     * @return whether the timer took it (false once the server stopped)
     */
    boolean schedule(Runnable wake, long delayNanos) {
        if (this.scheduler == null) {
            return false;
        }
        try {
            long millis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(delayNanos + 999_999));
            this.scheduler.schedule(wake, millis);
            return true;
        }
        catch (RejectedExecutionException ex) {
            return false;
        }
    }

    /**
     * Counts time a connection spent throttled.
     * @param read whether its reads were throttled, or its writes
     * @param nanos how long
     */
    void throttled(boolean read, long nanos) {
        this.observer.throttled(read, nanos);
    }
}
