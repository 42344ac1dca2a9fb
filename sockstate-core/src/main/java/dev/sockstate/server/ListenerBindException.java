package dev.sockstate.server;

import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * A listener could not open, bind or listen on its address, or could not ready its Unix domain
 * socket's file; names the listener and the address.
 */
public class ListenerBindException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String listener;

    private final transient SocketAddress address;

    /**
     * @param listener the listener's name
     * @param address the address it asked for
     * @param cause the native failure
     */
    public ListenerBindException(String listener, SocketAddress address, NativeIoException cause) {
        this(listener, address, cause.getMessage(), cause);
    }

    /**
     * @param listener the listener's name
     * @param address the address it asked for: an IP address and port, or a Unix domain socket's path
     * @param reason why it could not bind, as a sentence
     * @param cause the failure, or {@code null}
     */
    public ListenerBindException(String listener, SocketAddress address, String reason, @Nullable Throwable cause) {
        super("Listener '" + listener + "' could not bind to " + describe(address) + ": " + reason, cause);
        this.listener = listener;
        this.address = address;
    }

    /** @return {@code 127.0.0.1 port 7007}, or {@code Unix socket /run/app/echo.sock} */
    private static String describe(SocketAddress address) {
        if (address instanceof UnixDomainSocketAddress unix) {
            return "Unix socket " + unix.getPath();
        }
        InetSocketAddress inet = (InetSocketAddress) address;
        return inet.getAddress().getHostAddress() + " port " + inet.getPort();
    }

    /** @return the listener's name */
    public String listener() {
        return this.listener;
    }

    /** @return the address it asked for: an {@code InetSocketAddress}, or a {@code UnixDomainSocketAddress} */
    public SocketAddress address() {
        return this.address;
    }

    /** @return whether the port is taken by another socket */
    public boolean isPortInUse() {
        return getCause() instanceof NativeIoException failure && failure.error() == NativeError.ADDRESS_IN_USE;
    }
}
