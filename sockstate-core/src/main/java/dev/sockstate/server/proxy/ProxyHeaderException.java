package dev.sockstate.server.proxy;

import java.io.IOException;

/**
 * A connection's PROXY protocol header was refused, and the connection closed: what a handler's
 * {@code onError} receives when it heard of the connection already (a peer outside the trusted proxies
 * that sent a header).
 */
public class ProxyHeaderException extends IOException {

    private static final long serialVersionUID = 1L;

    private final String reason;

    /**
     * @param reason one word: {@code malformed}, {@code version}, {@code oversized}, {@code untrusted} or {@code timeout}
     * @param message what was wrong, naming the connection
     */
    public ProxyHeaderException(String reason, String message) {
        super(message);
        this.reason = reason;
    }

    /** @return why, one word: {@code malformed}, {@code version}, {@code oversized}, {@code untrusted} or {@code timeout} */
    public String reason() {
        return this.reason;
    }
}
