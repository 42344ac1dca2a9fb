package dev.sockstate.server.client;

/**
 * A worker waited for a client's future that only it can complete: the reply to a request whose
 * connection its port serves, or a connection of its own that it asked for (served on its port). The
 * worker would have to write the request and read the reply, or finish the connect, while it waits,
 * so the wait would never end, and every other connection of that worker would stall with it.
 * {@code get} and {@code join} on such a future throw this at once instead, unless the future is
 * complete already. Take the outcome where it comes instead: a {@link ReplyHandler}, or
 * {@code thenAccept}/{@code whenComplete} on the future; or run the handler that waits on a
 * handler executor, whose threads may block.
 */
public class BlockingOperationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String clientName;

    /**
     * @param clientName the client's name
     * @param message what waited where, naming the client and the way out
     */
    public BlockingOperationException(String clientName, String message) {
        super(message);
        this.clientName = clientName;
    }

    /** @return the name of the client whose future was waited for */
    public String clientName() {
        return this.clientName;
    }
}
