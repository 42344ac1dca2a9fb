package dev.sockstate.port;

/** The socket options a backend sets with {@code setsockopt}; values are integers (booleans as 0 or 1). */
public enum NativeSocketOption {

    /** SO_REUSEADDR: bind a listening port still in TIME_WAIT. */
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
