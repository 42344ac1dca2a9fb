package dev.sockstate.server.client;

import org.jspecify.annotations.Nullable;

/**
 * A client could not do what was asked: it has no open connection (its backend refused, did not
 * answer in time, or is being connected to again), or the connection a request went out on failed
 * or closed before the reply came. The message names the client and the cause.
 */
public class ClientException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String clientName;

    /**
     * @param clientName the client's name
     * @param message what went wrong, naming the client
     * @param cause what caused it, {@code null} when nothing else did
     */
    public ClientException(String clientName, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.clientName = clientName;
    }

    /** @return the name of the client that failed */
    public String clientName() {
        return this.clientName;
    }
}
