package dev.sockstate.server;

/**
 * How a TCP listener accepts its connections ({@link ListenerSettings.Builder#accept(AcceptMode)}).
 */
public enum AcceptMode {

    /**
     * One listening socket, registered on one port of the listener's worker group: its worker accepts
     * every connection and hands each to the group's ports in turn. The default.
     */
    SHARED,

    /**
     * A listening socket for each worker of a group with a port per worker
     * ({@link WorkerGroupSettings#portPerWorker()}), all bound to the listener's address with
     * {@code SO_REUSEPORT}: the kernel spreads the incoming connections over them, each worker accepts
     * from its own, and the connections it accepts stay on its port (the worker that accepts a
     * connection serves it). Accepting then runs on every worker at once instead of on one, and no
     * connection crosses threads as it opens. It costs a descriptor per worker; a connection is
     * pinned to the worker the kernel's hash of its addresses chose, busy or not; and a socket whose
     * worker stops accepting leaves the others to take its share (see docs/listeners.md).
     * <p>
     * Refused on a group whose workers (more than one) share one port: there is no worker's own
     * port to accept on, only more sockets that any worker takes; a group of one worker accepts on
     * one socket. Where the system cannot spread connections over sockets sharing a port number (Windows, which
     * has no {@code SO_REUSEPORT}; the nio backend off Linux, where BSD kernels hand them all to one
     * socket) the listener accepts as {@link #SHARED}, which its start-up log says once. TCP only.
     */
    PER_WORKER
}
