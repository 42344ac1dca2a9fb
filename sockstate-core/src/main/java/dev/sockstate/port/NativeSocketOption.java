package dev.sockstate.port;

/**
 * The socket options a backend sets with {@code setsockopt}; values are integers (booleans as 0 or 1).
 * A backend that has no such option on its system refuses it ({@link NativeSockets#unsupported}).
 */
public enum NativeSocketOption {

    /**
     * Bind a listening port whose old connections are still in TIME_WAIT: SO_REUSEADDR on Linux. On
     * Windows binding allows that without it, and the option is not set there (its SO_REUSEADDR would
     * let another socket bind a port in active use).
     */
    REUSE_ADDRESS("SO_REUSEADDR"),

    /** SO_REUSEPORT: several sockets bound to one port, the kernel spreading connections among them. */
    REUSE_PORT("SO_REUSEPORT"),

    /** TCP_NODELAY: send small segments at once rather than coalescing them (Nagle off). */
    TCP_NODELAY("TCP_NODELAY"),

    /** SO_RCVBUF: the receive buffer size in bytes. */
    RECEIVE_BUFFER("SO_RCVBUF"),

    /** SO_SNDBUF: the send buffer size in bytes. */
    SEND_BUFFER("SO_SNDBUF"),

    /** SO_KEEPALIVE: probe idle connections. */
    KEEP_ALIVE("SO_KEEPALIVE"),

    /** IPV6_V6ONLY: an IPv6 socket that does not also accept IPv4-mapped peers. */
    IPV6_ONLY("IPV6_V6ONLY"),

    /** TCP_KEEPIDLE: the seconds a connection is idle before its first keep-alive probe. */
    KEEP_ALIVE_IDLE("TCP_KEEPIDLE"),

    /** TCP_KEEPINTVL: the seconds between keep-alive probes. */
    KEEP_ALIVE_INTERVAL("TCP_KEEPINTVL"),

    /** TCP_KEEPCNT: the unanswered keep-alive probes after which the connection is dropped. */
    KEEP_ALIVE_COUNT("TCP_KEEPCNT"),

    /**
     * TCP_USER_TIMEOUT: the milliseconds sent data may stay unacknowledged (or unsent before a closed
     * window) before the connection is dropped; 0 for the system's rule.
     */
    USER_TIMEOUT("TCP_USER_TIMEOUT"),

    /**
     * SO_LINGER, as one integer: the seconds a close waits for unsent data to be acknowledged, 0 to
     * reset the connection at close, -1 for off (the system's graceful close in the background).
     */
    LINGER("SO_LINGER"),

    /** TCP_NOTSENT_LOWAT: the unsent bytes below which the socket reports itself writable. */
    NOT_SENT_LOW_WATERMARK("TCP_NOTSENT_LOWAT"),

    /**
     * TCP_FASTOPEN on a listening socket, set before it listens: the most connections whose SYN
     * carried data (TCP Fast Open, RFC 7413) may wait to be accepted; 0 for off.
     */
    FAST_OPEN("TCP_FASTOPEN"),

    /** IP_TOS: the type-of-service octet (DSCP and ECN bits) of the IPv4 packets a socket sends. */
    TYPE_OF_SERVICE("IP_TOS"),

    /** IPV6_TCLASS: the traffic class octet (DSCP and ECN bits) of the IPv6 packets a socket sends. */
    IPV6_TRAFFIC_CLASS("IPV6_TCLASS"),

    /**
     * SO_RXQ_OVFL on a datagram socket, 1 for on: each datagram received carries the count of datagrams
     * the system dropped at the socket since it opened because its receive buffer was full
     * ({@link DatagramBatch#overflows()}).
     */
    RECEIVE_QUEUE_OVERFLOWS("SO_RXQ_OVFL"),

    /**
     * UDP_SEGMENT on a UDP socket: a datagram sent longer than the value leaves as datagrams of the
     * value's size each, the last perhaps shorter, cut by the system (generic segmentation offload); 0
     * for off. Linux 4.18 and later; Windows' {@code UDP_SEND_MSG_SIZE}, Windows 10 2004 and later. (A send batch gives the size with each datagram instead:
     * {@link OutgoingDatagrams#add(java.nio.ByteBuffer, PeerAddress, int)}.)
     */
    SEGMENT_SIZE("UDP_SEGMENT"),

    /**
     * UDP_GRO on a UDP socket, 1 for on: datagrams of one sender that arrive together (segmented by the
     * sender's system, or coalesced by the receiving interface) may be received as one, whose segment
     * size {@link DatagramBatch#segmentSize(int)} gives (a batch made for it:
     * {@link NativeSockets#datagramBatch(int, int, boolean)}). Linux 5.0 and later; Windows'
     * {@code UDP_RECV_MAX_COALESCED_SIZE} (set to 65,535 bytes), Windows 10 2004 and later.
     */
    RECEIVE_COALESCED("UDP_GRO");

    private final String nativeName;

    NativeSocketOption(String nativeName) {
        this.nativeName = nativeName;
    }

    /** @return its name in the BSD socket API, such as {@code TCP_KEEPIDLE} */
    public String nativeName() {
        return this.nativeName;
    }
}
