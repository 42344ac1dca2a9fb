package dev.sockstate.server.admission;

/** Why a listener refused a connection as it was accepted: each is counted, and named in meters by its {@link #tag()}. */
public enum Refusal {

    /** The listener had its most open connections. */
    MAX_CONNECTIONS("max-connections"),

    /** The source is in a deny range, or in no allow range. */
    DENIED("denied"),

    /** The source (its address, or its network where a prefix is set) had its most open connections. */
    SOURCE_LIMIT("source-limit"),

    /** The source opened connections faster than its accept rate. */
    SOURCE_RATE("source-rate"),

    /** The listener was accepting faster than its accept rate. */
    LISTENER_RATE("listener-rate");

    private final String tag;

    Refusal(String tag) {
        this.tag = tag;
    }

    /** @return its name in meters and the endpoint: {@code max-connections}, {@code denied}... */
    public String tag() {
        return this.tag;
    }
}
