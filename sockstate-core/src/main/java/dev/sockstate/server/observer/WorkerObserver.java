package dev.sockstate.server.observer;

import dev.sockstate.server.observer.ServerObserver.DequeueOutcome;

/**
 * What one worker reports of its dequeue calls. Called by that worker's thread only, so an
 * implementation may accumulate in plain fields and publish them when read.
 */
public interface WorkerObserver {

    /** Reports nothing. */
    WorkerObserver NONE = new WorkerObserver() {
    };

    /** @return whether {@link #dequeued} wants the time spent in the call (costs two clock reads a call) */
    default boolean timesDequeues() {
        return false;
    }

    /**
     * One dequeue call returned.
     * @param notifications how many socket notifications it returned (posted messages excluded)
     * @param outcome notified, timeout, or woken by a posted message only
     * @param waitNanos the time the call took, when {@link #timesDequeues()}, else zero
     */
    default void dequeued(int notifications, DequeueOutcome outcome, long waitNanos) {
    }

    /**
     * The worker's thread died: the group serves on with the others, and the health turns DOWN.
     * @param failure what killed it
     */
    default void died(Throwable failure) {
    }
}
