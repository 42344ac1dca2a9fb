package dev.sockstate.server;

import java.io.IOException;

/**
 * A peer's message that does not read as the type its handler takes (JSON that does not parse, say).
 * Its handler's {@code onError} receives it and may still answer, then the connection it came on
 * closes; a datagram is dropped. Counted, like bytes that do not frame.
 */
public class InvalidMessageException extends IOException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what was wrong, naming the listener
     * @param cause the mapper's failure
     */
    public InvalidMessageException(String message, Throwable cause) {
        super(message, cause);
    }
}
