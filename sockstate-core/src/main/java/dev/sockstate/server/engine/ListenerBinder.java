package dev.sockstate.server.engine;

import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.ListenerBindException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.engine.turn.SocketTurn;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;

/**
 * Opens, configures, binds and registers a listener's socket: a listening TCP socket with its
 * acceptor, or a UDP socket, or their Unix domain kin (whose file {@link UnixSocketFile} readies).
 * On failure the socket is closed again (and its file removed), and the error names the listener
 * and the address.
 */
final class ListenerBinder {

    private static final System.Logger logger = System.getLogger(ListenerBinder.class.getName());

    private final NativeSockets sockets;

    ListenerBinder(NativeSockets sockets) {
        this.sockets = sockets;
    }

    /**
     * @param listener the listener to bind
     * @return its registered socket, armed
     * @throws ListenerBindException when the socket cannot be opened, configured or bound
     */
    SocketTurn bind(Listener listener) {
        ListenerSettings settings = listener.settings();
        Path path = settings.unixPath();
        InetAddress address = settings.address();
        boolean dualStack = path == null && address == null;
        if (dualStack) {
            address = anyAddress();
        }
        SocketAddress target;
        StandardProtocolFamily family;
        if (path != null) {
            target = UnixDomainSocketAddress.of(path);
            family = StandardProtocolFamily.UNIX;
            UnixSocketFile.clearStale(settings.name(), path);
        }
        else {
            target = new InetSocketAddress(address, settings.portNumber());
            family = (address.getAddress().length == 16) ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET;
        }
        long handle;
        SocketTurn registered = null;
        try {
            handle = this.sockets.open(settings.protocol(), family);
        }
        catch (NativeIoException ex) {
            throw new ListenerBindException(settings.name(), target, ex);
        }
        boolean fileMade = false;
        try {
            if (dualStack && family == StandardProtocolFamily.INET6) {
                this.sockets.setOption(handle, NativeSocketOption.IPV6_ONLY, 0);
            }
            if (settings.reuseAddress() && path == null) {
                this.sockets.setOption(handle, NativeSocketOption.REUSE_ADDRESS, 1);
            }
            if (settings.reusePort()) {
                this.sockets.setOption(handle, NativeSocketOption.REUSE_PORT, 1);
            }
            if (settings.receiveBufferSize() > 0) {
                this.sockets.setOption(handle, NativeSocketOption.RECEIVE_BUFFER, settings.receiveBufferSize());
            }
            if (settings.protocol() == Protocol.UDP) {
                // As the reference does: register before binding, so no datagram arrives unnoticed.
                registered = new UdpSocket(listener, handle);
                register(listener, registered);
                this.sockets.bind(handle, target);
                fileMade = path != null;
                UnixSocketFile.restrict(path, settings.unixPermissions());
            }
            else {
                if (settings.tcpNoDelay() && path == null) {
                    setNoDelayToInherit(handle, settings);
                }
                this.sockets.bind(handle, target);
                fileMade = path != null;
                // Before listening, so that no one connects while the umask's permissions hold.
                UnixSocketFile.restrict(path, settings.unixPermissions());
                this.sockets.listen(handle, settings.backlog());
                registered = new TcpAcceptor(listener, handle);
                register(listener, registered);
            }
            listener.bound(registered, this.sockets.localAddress(handle));
            return registered;
        }
        catch (IOException ex) {
            if (registered != null) {
                // Closes the socket once and takes it out of the table, so the teardown does not close it again;
                // a listener that never served did not stop serving.
                listener.stopping();
                registered.forceFinish();
            }
            else {
                closeQuietly(handle);
            }
            if (fileMade) {
                UnixSocketFile.remove(settings.name(), path);
            }
            throw (ex instanceof NativeIoException failure) ? new ListenerBindException(settings.name(), target, failure)
                    : new ListenerBindException(settings.name(), target, "its socket file's permissions could not be set: " + ex, ex);
        }
    }

    /**
     * Sets TCP_NODELAY on a listening socket, for the sockets it accepts to inherit: one system call
     * per listener instead of one per connection. Best effort: the acceptor checks the first accepted
     * socket and sets each connection on its own where the option was not inherited.
     */
    private void setNoDelayToInherit(long handle, ListenerSettings settings) {
        try {
            this.sockets.setOption(handle, NativeSocketOption.TCP_NODELAY, 1);
        }
        catch (NativeIoException ex) {
            logger.log(Level.DEBUG, "Listener '" + settings.name() + "' has no TCP_NODELAY for its connections to inherit", ex);
        }
    }

    private static void register(Listener listener, SocketTurn socket) {
        if (!listener.enter(socket)) {
            throw new IllegalStateException("No room for " + socket);
        }
        listener.letGo(socket);
    }

    private InetAddress anyAddress() {
        try {
            long probe = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET6);
            closeQuietly(probe);
            return InetAddress.getByName("::");
        }
        catch (NativeIoException ex) {
            if (ex.error() != NativeError.NOT_SUPPORTED) {
                logger.log(Level.DEBUG, "No IPv6 here; listening on IPv4 only", ex);
            }
        }
        catch (UnknownHostException ex) {
            throw new IllegalStateException(ex);
        }
        try {
            return InetAddress.getByName("0.0.0.0");
        }
        catch (UnknownHostException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private void closeQuietly(long handle) {
        try {
            this.sockets.close(handle);
        }
        catch (NativeIoException ex) {
            // released all the same
        }
    }
}
