package dev.sockstate.server.framing;

import java.io.IOException;

/**
 * A peer's bytes that do not frame (a malformed or negative length, a frame over the listener's
 * limit), or content that cannot be framed. The connection it happened on is aborted and its
 * handler's {@code onError} receives it, its message naming the listener and what was wrong.
 */
public class FramingException extends IOException {

    private static final long serialVersionUID = 1L;

    /** @param message what was wrong */
    public FramingException(String message) {
        super(message);
    }

    /**
     * @param message what was wrong
     * @param cause the failure behind it
     */
    public FramingException(String message, Throwable cause) {
        super(message, cause);
    }
}
