package dev.sockstate.port;

/** The transport of a socket. */
public enum Protocol {

    /** A TCP stream socket. */
    TCP,

    /** A UDP datagram socket. */
    UDP
}
