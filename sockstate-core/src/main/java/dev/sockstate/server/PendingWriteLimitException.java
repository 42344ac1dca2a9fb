package dev.sockstate.server;

import java.io.IOException;

/**
 * A connection's queued writes passed its listener's {@code abortPendingWriteBytes}: the connection
 * is aborted and what it queued dropped. Reading pauses long before, at {@code maxPendingWriteBytes},
 * so a queue that keeps growing means writes that do not look at {@link Connection#isWritable()} (a
 * handler that writes on in a loop, or other threads' writes): the limit keeps one such connection
 * from filling the heap. The handler hears of it in {@code onError}.
 */
public class PendingWriteLimitException extends IOException {

    private static final long serialVersionUID = 1L;

    private final long limit;

    /**
     * @param message what was queued, naming the connection and the limit
     * @param limit the limit passed, in bytes
     */
    public PendingWriteLimitException(String message, long limit) {
        super(message);
        this.limit = limit;
    }

    /** @return the limit the queued writes passed, in bytes */
    public long limit() {
        return this.limit;
    }
}
