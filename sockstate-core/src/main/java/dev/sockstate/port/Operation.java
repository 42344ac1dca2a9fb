package dev.sockstate.port;

/** A change to a registration; the codes are Winsock's {@code SOCK_NOTIFY_OP_*} values. */
public enum Operation {

    /**
     * Register the socket, or change its filter and trigger and re-arm it; an edge-triggered
     * registration then notifies only changes after it, so read until would-block after it.
     */
    ENABLE(0x01),

    /** Keep the registration but stop new notifications (queued ones may still arrive). */
    DISABLE(0x02),

    /**
     * Remove the registration; one REMOVE notification follows, and nothing after it. Notifications
     * already queued may come before it, or joined with it.
     */
    REMOVE(0x04);

    private final int code;

    Operation(int code) {
        this.code = code;
    }

    /** @return the operation's code */
    public int code() {
        return this.code;
    }
}
