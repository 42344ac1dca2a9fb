package dev.sockstate.port;

import org.jspecify.annotations.Nullable;

/** A backend was asked for on a system where it cannot run; the message says why. */
public class BackendUnavailableException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String backend;

    /**
     * @param backend the backend's name, or {@code auto}
     * @param message why it cannot run
     * @param cause the failure behind it, or {@code null}
     */
    public BackendUnavailableException(String backend, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.backend = backend;
    }

    /** @return the backend that was asked for */
    public String backend() {
        return this.backend;
    }
}
