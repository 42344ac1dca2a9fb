package dev.sockstate.server.framing;

import java.io.IOException;

/**
 * A peer's bytes that do not frame (a malformed or negative length, a frame over the listener's
 * limit), or content that cannot be framed. The handler's {@code onError} receives it, its message
 * naming the listener and what was wrong, and may still answer (a protocol error reply); then the
 * connection closes. Content the handler wrote that cannot be framed aborts the connection.
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
