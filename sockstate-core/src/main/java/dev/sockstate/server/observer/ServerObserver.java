package dev.sockstate.server.observer;

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

    /**
     * @param client the client's name
     * @param active reads the client's open connections and pending requests, for gauges
     * @return the observer of that client's connections (their traffic, as a listener's) and of its
     * connects and requests
     */
    default ListenerObserver client(String client, ActiveCounts active) {
        return ListenerObserver.NONE;
    }

    /**
     * A listener was removed from the running server, its connections closed: what was kept of it
     * (its meters) may go. A listener added later under the same name starts afresh.
     * @param listener the listener's name
     */
    default void listenerRemoved(String listener) {
    }

    /**
     * A client was removed from the running server, its connections closed: what was kept of it may go.
     * @param client the client's name
     */
    default void clientRemoved(String client) {
    }

    /**
     * @param group the worker group
     * @param worker the worker's number in its group, from 1
     * @return the observer of that worker's dequeue calls, used by that worker's thread only
     */
    default WorkerObserver worker(String group, int worker) {
        return WorkerObserver.NONE;
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

    /** Live counts of a listener or a client, read when a gauge is sampled. */
    interface ActiveCounts {

        /** @return open connections (TCP) */
        int connections();

        /** @return registrations on the port: the listener's own and its connections' */
        int registrations();

        /** @return bytes written and waiting in the connections' queues for their sockets to take them */
        default long pendingWriteBytes() {
            return 0;
        }

        /** @return bytes the connections' unfinished frames hold (their buffers' capacities): at most the framing's max-unfinished-bytes */
        default long unfinishedFrameBytes() {
            return 0;
        }

        /**
         * @return bytes of the direct buffers its TLS and framing made to lend the connections' turns
         *     (records, their plaintext, framed writes), lent now or idle: bounded by their pools, not
         *     by the connections
         */
        default long pooledBufferBytes() {
            return 0;
        }

        /**
         * @return native TLS engines (OpenSSL's) its connections hold now, each with its native memory,
         *     freed as its connection ends; 0 on the JDK's engine
         */
        default long nativeTlsEngines() {
            return 0;
        }

        /** @return a client's requests sent and not yet answered; 0 for a listener */
        default int pendingRequests() {
            return 0;
        }
    }
}
