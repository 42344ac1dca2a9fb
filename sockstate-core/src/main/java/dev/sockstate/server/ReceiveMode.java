package dev.sockstate.server;

/**
 * How a UDP listener receives its datagrams ({@link ListenerSettings.Builder#receive(ReceiveMode)}):
 * the counterpart of {@link AcceptMode} for a protocol that accepts nothing.
 */
public enum ReceiveMode {

    /** One socket, registered on one port of the listener's worker group: its worker receives every datagram. The default. */
    SHARED,

    /**
     * A socket for each worker of a group with a port per worker ({@link WorkerGroupSettings#portPerWorker()}),
     * all bound to the listener's address with {@code SO_REUSEPORT}: the kernel spreads the datagrams
     * over them by a hash of their sender's and the listener's addresses, so the datagrams of one sender
     * keep to one socket (their order kept) and several workers receive one port's datagrams at once.
     * It costs a descriptor and a receive batch per worker; a sender is pinned to the worker the hash
     * chose, busy or not, and a few senders may leave workers idle.
     * <p>
     * Refused on a group whose workers (more than one) share one port, and with multicast (every socket
     * bound to the port would receive each group datagram). Where the system cannot spread datagrams over
     * sockets sharing a port number (Windows, which has no {@code SO_REUSEPORT}; the nio backend off Linux)
     * the listener receives on one socket, as with {@link #SHARED}, which its start-up log says once.
     * UDP on an IP port only.
     */
    PER_WORKER
}
