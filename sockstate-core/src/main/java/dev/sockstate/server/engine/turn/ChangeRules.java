package dev.sockstate.server.engine.turn;

import dev.sockstate.port.Backend;

/**
 * How a backend takes registration changes, as the turns need to know it.
 * @param edgeOnEveryArrival whether an edge is raised for every arrival, even while data is unread
 * @param withDequeue whether a change deferred to the next dequeue call saves a system call
 */
public record ChangeRules(boolean edgeOnEveryArrival, boolean withDequeue) {

    /** Epoll's: an edge per arrival, and every change one system call of its own. */
    public static final ChangeRules EPOLL = new ChangeRules(true, false);

    /**
     * @param backend a backend
     * @return its rules
     */
    public static ChangeRules of(Backend backend) {
        return new ChangeRules(backend.edgeOnEveryArrival(), backend.appliesChangesWithDequeue());
    }
}
