package dev.sockstate.spring.handler;

/** The {@link SocketHandler} beans do not fit the configured listeners; the message says how. */
public class SocketHandlerDefinitionException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String action;

    /**
     * @param message what is wrong
     * @param action what to do about it
     */
    public SocketHandlerDefinitionException(String message, String action) {
        super(message);
        this.action = action;
    }

    /** @return what to do about it */
    public String action() {
        return this.action;
    }
}
