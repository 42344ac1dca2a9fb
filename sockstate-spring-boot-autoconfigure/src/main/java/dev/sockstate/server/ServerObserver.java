package dev.sockstate.server;

import dev.sockstate.port.Protocol;

/**
 * What the runtime reports as it works, for metrics. Per-listener observers are asked for once at
 * start-up, so that the hot path calls a resolved object and looks nothing up. {@link #NONE}
 * reports nothing and costs nothing.
 */
public interface ServerObserver {

    /** Reports nothing. */
    ServerObserver NONE = new ServerObserver() {
    };

    /**
     * @param listener the listener's name
     * @param protocol its protocol
     * @param active reads the listener's open connections (or 1 for a UDP listener), for gauges
     * @return the observer of that listener's events
     */
    default ListenerObserver listener(String listener, Protocol protocol, ActiveCounts active) {
        return ListenerObserver.NONE;
    }

    /** @return whether {@link #dequeued} wants the time spent waiting (costs two clock reads a call) */
    default boolean timesDequeues() {
        return false;
    }

    /**
     * One dequeue call returned.
     * @param group the worker group
     * @param notifications how many notifications it returned (posted messages excluded)
     * @param outcome notified, timeout, or woken by a posted message only
     * @param waitNanos the time the call took, when {@link #timesDequeues()}, else zero
     */
    default void dequeued(String group, int notifications, DequeueOutcome outcome, long waitNanos) {
    }

    /** The outcome of one dequeue call. */
    enum DequeueOutcome {

        /** At least one socket notification. */
        NOTIFIED,

        /** Nothing arrived before the timeout. */
        TIMEOUT,

        /** Only posted messages (wake-ups, handed work). */
        WOKEN
    }

    /** Live counts of a listener, read when a gauge is sampled. */
    interface ActiveCounts {

        /** @return open connections (TCP) */
        int connections();

        /** @return registrations on the port: the listener's own and its connections' */
        int registrations();
    }
}
