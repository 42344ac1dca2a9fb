package dev.sockstate.port;

/** The socket options a backend sets with {@code setsockopt}; values are integers (booleans as 0 or 1). */
public enum NativeSocketOption {

    /**
     * Bind a listening port whose old connections are still in TIME_WAIT: SO_REUSEADDR on Linux. On
     * Windows binding allows that without it, and the option is not set there (its SO_REUSEADDR would
     * let another socket bind a port in active use).
     */
    REUSE_ADDRESS,

    /** SO_REUSEPORT: several sockets bound to one port, the kernel spreading connections among them. */
    REUSE_PORT,

    /** TCP_NODELAY: send small segments at once rather than coalescing them (Nagle off). */
    TCP_NODELAY,

    /** SO_RCVBUF: the receive buffer size in bytes. */
    RECEIVE_BUFFER,

    /** SO_SNDBUF: the send buffer size in bytes. */
    SEND_BUFFER,

    /** SO_KEEPALIVE: probe idle connections. */
    KEEP_ALIVE,

    /** IPV6_V6ONLY: an IPv6 socket that does not also accept IPv4-mapped peers. */
    IPV6_ONLY
}
