package dev.sockstate.server;

import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import java.net.InetSocketAddress;

/** A listener could not open, bind or listen on its address; names the listener and the address. */
public class ListenerBindException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String listener;

    private final transient InetSocketAddress address;

    /**
     * @param listener the listener's name
     * @param address the address it asked for
     * @param cause the native failure
     */
    public ListenerBindException(String listener, InetSocketAddress address, NativeIoException cause) {
        super("Listener '" + listener + "' could not bind to " + describe(address) + ": " + cause.getMessage(), cause);
        this.listener = listener;
        this.address = address;
    }

    private static String describe(InetSocketAddress address) {
        return address.getAddress().getHostAddress() + " port " + address.getPort();
    }

    /** @return the listener's name */
    public String listener() {
        return this.listener;
    }

    /** @return the address it asked for */
    public InetSocketAddress address() {
        return this.address;
    }

    /** @return whether the port is taken by another socket */
    public boolean isPortInUse() {
        return getCause() instanceof NativeIoException failure && failure.error() == NativeError.ADDRESS_IN_USE;
    }
}
