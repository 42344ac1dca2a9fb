package dev.sockstate.port;

/** The notification port was closed; thrown to every caller, including waiters woken by the close. */
public class PortClosedException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** @param port a description of the closed port */
    public PortClosedException(String port) {
        super("The notification port " + port + " is closed");
    }
}
