package dev.sockstate.server;

/**
 * Whether a UDP listener receives datagrams coalesced by the system ({@link ListenerSettings.Builder#coalescing(Coalescing)}):
 * Linux's {@code UDP_GRO}, Windows' {@code UDP_RECV_MAX_COALESCED_SIZE}, which hand over the datagrams of
 * one sender that arrive together (segmented by the sender's system with {@code UDP_SEGMENT} or
 * {@code UDP_SEND_MSG_SIZE}, or merged by the receiving interface) as one coalesced datagram of
 * equal-size segments, the last perhaps shorter, for one system call and one pass through the stack
 * instead of one each.
 */
public enum Coalescing {

    /** Each datagram received alone. The default. */
    OFF,

    /** Coalesced by the system, each segment still handed to the handler as a datagram of its own, in order. */
    SEGMENTS,

    /**
     * Coalesced by the system and handed to the handler whole: a coalesced datagram, whose segment size
     * {@link DatagramEndpoint#segmentSize()} gives in the handler's call (0 for a datagram received alone).
     * Refused with a handler executor, whose calls come after the worker's turn.
     */
    WHOLE
}
