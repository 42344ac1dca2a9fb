package dev.sockstate.port;

/**
 * Event bits: the filter a registration asks for ({@link #IN}, {@link #OUT}, {@link #HANGUP}) and
 * the events a notification delivers (those three plus {@link #ERR} and {@link #REMOVE}). The
 * values are Winsock's {@code SOCK_NOTIFY_EVENT_*} values, so the Windows backend passes them
 * through unchanged.
 * <p>
 * A notification's events held when it was queued: by the time it is dequeued, IN or OUT may no
 * longer hold (see {@link NotificationPort} for what every backend guarantees).
 */
public final class Events {

    /** Readable: data, a datagram, or a pending connection on a listener (possibly stale once dequeued). */
    public static final int IN = 0x01;

    /** Writable: the send buffer has room, or a non-blocking connect completed (possibly stale once dequeued). */
    public static final int OUT = 0x02;

    /** The peer hung up (no more data will arrive). */
    public static final int HANGUP = 0x04;

    /**
     * An error is pending on the socket; delivered whatever the filter says. Learn it from a read:
     * once ERR was delivered, {@link NativeSockets#takeError(long)} may report nothing (Windows).
     */
    public static final int ERR = 0x40;

    /**
     * The registration was removed; delivered once, last, after a REMOVE operation, possibly joined
     * with events queued before it ({@code IN|REMOVE}).
     */
    public static final int REMOVE = 0x80;

    /** Every bit a registration may ask for. */
    public static final int FILTER_ALL = IN | OUT | HANGUP;

    /** Every bit a notification may carry. */
    public static final int ALL = IN | OUT | HANGUP | ERR | REMOVE;

    private Events() {
    }

    /**
     * Checks that {@code filter} only asks for IN, OUT and HANGUP.
     * @param filter the event filter of a registration
     * @return the filter
     * @throws IllegalArgumentException naming the unknown bits
     */
    public static int requireFilter(int filter) {
        if ((filter & ~FILTER_ALL) != 0) {
            throw new IllegalArgumentException("Event filter " + toString(filter)
                    + " has bits that cannot be registered; use IN, OUT and HANGUP");
        }
        return filter;
    }

    /**
     * Names the bits of an event mask, such as {@code IN|HANGUP}.
     * @param events the mask
     * @return its readable form, {@code NONE} for zero
     */
    public static String toString(int events) {
        if (events == 0) {
            return "NONE";
        }
        StringBuilder text = new StringBuilder();
        append(text, events, IN, "IN");
        append(text, events, OUT, "OUT");
        append(text, events, HANGUP, "HANGUP");
        append(text, events, ERR, "ERR");
        append(text, events, REMOVE, "REMOVE");
        int unknown = events & ~ALL;
        if (unknown != 0) {
            text.append(text.length() == 0 ? "" : "|").append("0x").append(Integer.toHexString(unknown));
        }
        return text.toString();
    }

    private static void append(StringBuilder text, int events, int bit, String name) {
        if ((events & bit) != 0) {
            text.append(text.length() == 0 ? "" : "|").append(name);
        }
    }
}
