package dev.sockstate.autoconfigure.metrics;

import dev.sockstate.server.observer.ServerObserver.DequeueOutcome;
import dev.sockstate.server.observer.WorkerObserver;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One worker's dequeue counts, written by that worker's thread alone (ordered stores, no atomic
 * read-modify-write) and summed over the workers when the meters are read.
 */
final class MicrometerWorkerObserver implements WorkerObserver {

    private static final VarHandle NOTIFIED;

    private static final VarHandle TIMED_OUT;

    private static final VarHandle WOKEN;

    private static final VarHandle WAIT_NANOS;

    private static final VarHandle NOTIFICATIONS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            NOTIFIED = lookup.findVarHandle(MicrometerWorkerObserver.class, "notified", long.class);
            TIMED_OUT = lookup.findVarHandle(MicrometerWorkerObserver.class, "timedOut", long.class);
            WOKEN = lookup.findVarHandle(MicrometerWorkerObserver.class, "woken", long.class);
            WAIT_NANOS = lookup.findVarHandle(MicrometerWorkerObserver.class, "waitNanos", long.class);
            NOTIFICATIONS = lookup.findVarHandle(MicrometerWorkerObserver.class, "notifications", long.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    @SuppressWarnings("unused")
    private long notified;

    @SuppressWarnings("unused")
    private long timedOut;

    @SuppressWarnings("unused")
    private long woken;

    @SuppressWarnings("unused")
    private long waitNanos;

    @SuppressWarnings("unused")
    private long notifications;

    private final String group;

    /** Times a worker using this observer died (a restarted server's worker uses it again). */
    private final AtomicLong deaths = new AtomicLong();

    /** @param group the worker's group */
    MicrometerWorkerObserver(String group) {
        this.group = group;
    }

    @Override
    public boolean timesDequeues() {
        return true;
    }

    @Override
    public void dequeued(int notifications, DequeueOutcome outcome, long nanos) {
        VarHandle counter = switch (outcome) {
            case NOTIFIED -> NOTIFIED;
            case TIMEOUT -> TIMED_OUT;
            default -> WOKEN;
        };
        counter.setRelease(this, (long) counter.get(this) + 1);
        WAIT_NANOS.setRelease(this, (long) WAIT_NANOS.get(this) + nanos);
        NOTIFICATIONS.setRelease(this, (long) NOTIFICATIONS.get(this) + notifications);
    }

    @Override
    public void died(Throwable failure) {
        this.deaths.incrementAndGet();
    }

    /** @return the worker's group */
    String group() {
        return this.group;
    }

    /** @return how many times the worker died */
    long deaths() {
        return this.deaths.get();
    }

    long dequeues(DequeueOutcome outcome) {
        return switch (outcome) {
            case NOTIFIED -> (long) NOTIFIED.getAcquire(this);
            case TIMEOUT -> (long) TIMED_OUT.getAcquire(this);
            default -> (long) WOKEN.getAcquire(this);
        };
    }

    long calls() {
        return dequeues(DequeueOutcome.NOTIFIED) + dequeues(DequeueOutcome.TIMEOUT) + dequeues(DequeueOutcome.WOKEN);
    }

    long waitNanos() {
        return (long) WAIT_NANOS.getAcquire(this);
    }

    long notifications() {
        return (long) NOTIFICATIONS.getAcquire(this);
    }
}
