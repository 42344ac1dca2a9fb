package dev.sockstate.server.engine;

import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.AcceptMode;
import dev.sockstate.server.Coalescing;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerBindException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.ReceiveMode;
import dev.sockstate.server.engine.turn.SocketTurn;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Opens, configures, binds and registers a listener's sockets: a listening TCP socket with its
 * acceptor (or one per worker, with accept per worker), or a UDP socket, or their Unix domain kin
 * (whose file {@link UnixSocketFile} readies). On failure every socket of the listener is closed
 * again (and its file removed), and the error names the listener and the address.
 */
final class ListenerBinder {

    private static final System.Logger logger = System.getLogger(ListenerBinder.class.getName());

    private final NativeSockets sockets;

    ListenerBinder(NativeSockets sockets) {
        this.sockets = sockets;
    }

    /**
     * @param listener the listener to bind
     * @return its registered sockets, armed: its UDP sockets or its listening TCP sockets (one, or one
     * per worker when it receives or accepts per worker)
     * @throws ListenerBindException when a socket cannot be opened, configured or bound; every socket
     * of the listener opened by then is closed again
     */
    List<SocketTurn> bind(Listener listener) {
        ListenerSettings settings = listener.settings();
        if (settings.isUnix()) {
            return List.of(bindUnix(listener, settings.unixPath()));
        }
        InetAddress address = settings.address();
        boolean dualStack = address == null;
        if (dualStack) {
            address = anyAddress();
        }
        InetSocketAddress target = new InetSocketAddress(address, settings.portNumber());
        if (settings.accept() == AcceptMode.PER_WORKER && listener.profile.ports() > 1 && spreads(settings, target, listener.profile.ports())) {
            return bindPerWorker(listener, target, dualStack);
        }
        boolean coalesce = settings.protocol() == Protocol.UDP && settings.coalescing() != Coalescing.OFF && coalesces(settings, target);
        if (settings.receive() == ReceiveMode.PER_WORKER && listener.profile.ports() > 1 && spreads(settings, target, listener.profile.ports())) {
            return bindUdpPerWorker(listener, target, dualStack, coalesce);
        }
        // Before the socket is opened: an interface the system has not is refused with nothing to close.
        boolean multicast = settings.protocol() == Protocol.UDP && settings.multicast().isSet();
        int multicastInterface;
        try {
            multicastInterface = multicast ? MulticastMembership.interfaceIndex(settings) : 0;
        }
        catch (InvalidSettingException ex) {
            throw new ListenerBindException(settings.name(), target, ex.reason(), ex);
        }
        long handle = openListening(settings, target, dualStack, settings.reusePort());
        SocketTurn socket;
        try {
            if (settings.protocol() == Protocol.UDP) {
                if (multicast) {
                    MulticastMembership.configure(this.sockets, handle,
                            (target.getAddress() instanceof Inet6Address) ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET,
                            multicastInterface, settings.multicast());
                }
                // Bound before it is armed (its first arming reads what came meanwhile), and armed once its listener
                // is bound: nothing closes the socket while it binds, nor is it lost before the listener knows it.
                socket = new UdpSocket(listener, listener.profile.home(), handle, coalesce);
                this.sockets.bind(handle, target);
                if (multicast) {
                    MulticastMembership.join(this.sockets, handle, multicastInterface, settings.multicast());
                }
                listener.bound(List.of(socket), this.sockets.localAddress(handle));
            }
            else {
                this.sockets.bind(handle, target);
                this.sockets.listen(handle, settings.backlog());
                SocketAddress bound = this.sockets.localAddress(handle);
                // Known before it is armed: a failure of its first arming is then the listener's last socket failing.
                socket = new TcpAcceptor(listener, listener.profile.home(), handle, 0, inheritedOptions(settings, target));
                listener.bound(List.of(socket), bound);
            }
        }
        catch (NativeIoException ex) {
            // Neither armed nor in the table yet: its descriptor is all there is to close.
            closeQuietly(handle);
            throw new ListenerBindException(settings.name(), target, ex);
        }
        registerAll(listener, List.of(socket));
        return List.of(socket);
    }

    /**
     * Binds a Unix domain socket on its path: a stale file from a crash replaced, the file's
     * permissions set before anyone connects. With permissions to set, a stream socket is bound in a
     * private directory beside its path, its permissions set there, and then linked into place (never
     * over a file put there meanwhile), so that setting them follows no link someone else put at its
     * path. A datagram socket is bound at its path, which is the source address of its replies, and
     * its permissions set by that path after the bind.
     */
    private SocketTurn bindUnix(Listener listener, Path path) {
        ListenerSettings settings = listener.settings();
        UnixDomainSocketAddress target = UnixDomainSocketAddress.of(path);
        UnixSocketFile.clearStale(settings.name(), path);
        Path privatePath;
        try {
            // (Not a datagram socket's: the path it is bound at is the source address of what it sends.)
            privatePath = (settings.unixPermissions() != null && settings.protocol() == Protocol.TCP)
                    ? UnixSocketFile.privateBindPath(path) : null;
        }
        catch (IOException ex) {
            throw new ListenerBindException(settings.name(), target, "no private directory to bind in could be made beside its path: "
                    + ex, ex);
        }
        Path bindPath = (privatePath != null) ? privatePath : path;
        long handle;
        try {
            handle = this.sockets.open(settings.protocol(), StandardProtocolFamily.UNIX);
        }
        catch (NativeIoException ex) {
            if (privatePath != null) {
                UnixSocketFile.removePrivate(privatePath);
            }
            throw new ListenerBindException(settings.name(), target, ex);
        }
        SocketTurn socket;
        boolean bound = false;
        boolean published = privatePath == null;
        UnixSocketFile fileMade = null;
        String step = "its socket file's permissions could not be set";
        try {
            SocketOptionList options = SocketOptionList.of(settings.connection().socketOptions(), settings.protocol(), false, true);
            options.applyTo(this.sockets, handle);
            UdpSocket datagrams = null;
            if (settings.protocol() == Protocol.UDP) {
                // Armed once its listener is bound, as a UDP listener's socket on an address is.
                datagrams = new UdpSocket(listener, listener.profile.home(), handle, false);
                this.sockets.bind(handle, UnixDomainSocketAddress.of(bindPath));
                bound = true;
                UnixSocketFile.restrict(bindPath, settings.unixPermissions());
            }
            else {
                this.sockets.bind(handle, UnixDomainSocketAddress.of(bindPath));
                bound = true;
                // Before listening, so that no one connects while the umask's permissions hold.
                UnixSocketFile.restrict(bindPath, settings.unixPermissions());
                this.sockets.listen(handle, settings.backlog());
            }
            if (!published) {
                step = "its socket, bound in a private directory, could not be linked into place";
                UnixSocketFile.publish(privatePath, path);
                published = true;
            }
            step = "its socket file could not be read after the bind";
            fileMade = UnixSocketFile.made(path);
            listener.socketFile(fileMade);
            socket = (datagrams != null) ? datagrams : new TcpAcceptor(listener, listener.profile.home(), handle, 0, options);
            listener.bound(List.of(socket), target);
        }
        catch (IOException ex) {
            // Neither armed nor in the table yet: its descriptor is all there is to close.
            closeQuietly(handle);
            if (fileMade != null) {
                fileMade.remove(settings.name());
            }
            else if (bound && published) {
                // Bound (and linked into place) a moment ago, its file not read: this listener's.
                UnixSocketFile.removeJustBound(settings.name(), path);
            }
            else if (privatePath != null) {
                UnixSocketFile.removePrivate(privatePath);
            }
            if (ex instanceof NativeIoException failure) {
                throw new ListenerBindException(settings.name(), target, failure);
            }
            throw new ListenerBindException(settings.name(), target, (ex instanceof FileAlreadyExistsException)
                    ? "a file was put at its path while its socket was bound; it is refused rather than replaced"
                    : step + ": " + ex, ex);
        }
        try {
            registerAll(listener, List.of(socket));
        }
        catch (RuntimeException ex) {
            fileMade.remove(settings.name());
            throw ex;
        }
        return socket;
    }

    /**
     * Opens a listening socket for each port of the listener's group, each with SO_REUSEPORT and bound
     * to the same address (to the port number the first one got, for an ephemeral one), then registers each
     * on its own port. A failure part-way closes every socket opened so far.
     */
    private List<SocketTurn> bindPerWorker(Listener listener, InetSocketAddress target, boolean dualStack) {
        ListenerSettings settings = listener.settings();
        long[] handles = new long[listener.profile.ports()];
        int opened = 0;
        InetSocketAddress bound = null;
        try {
            for (; opened < handles.length; opened++) {
                InetSocketAddress where = (bound != null) ? bound : target;
                handles[opened] = openListening(settings, where, dualStack, true);
                try {
                    this.sockets.bind(handles[opened], where);
                    this.sockets.listen(handles[opened], settings.backlog());
                    if (bound == null) {
                        bound = (InetSocketAddress) this.sockets.localAddress(handles[opened]);
                    }
                }
                catch (NativeIoException ex) {
                    closeQuietly(handles[opened]);
                    throw new ListenerBindException(settings.name(), where, ex);
                }
            }
        }
        catch (ListenerBindException ex) {
            for (int i = 0; i < opened; i++) {
                closeQuietly(handles[i]);
            }
            throw ex;
        }
        List<SocketTurn> acceptors = new ArrayList<>(handles.length);
        for (int i = 0; i < handles.length; i++) {
            acceptors.add(new TcpAcceptor(listener, listener.profile.homeOn(i), handles[i], i + 1, inheritedOptions(settings, target)));
        }
        // Known before they are armed: one failing as it is first armed leaves the others serving.
        listener.bound(acceptors, bound);
        registerAll(listener, acceptors);
        return acceptors;
    }

    /**
     * Enters a listener's bound sockets in the table and arms each; when one finds no room, those armed
     * are finished and the others' descriptors closed.
     */
    private void registerAll(Listener listener, List<SocketTurn> sockets) {
        int registered = 0;
        try {
            for (; registered < sockets.size(); registered++) {
                register(listener, sockets.get(registered));
            }
        }
        catch (RuntimeException ex) {
            listener.stopping();
            for (int i = 0; i < sockets.size(); i++) {
                if (i < registered) {
                    sockets.get(i).forceFinish();
                }
                else {
                    closeQuietly(sockets.get(i).handle);
                }
            }
            throw ex;
        }
    }

    /**
     * Opens a UDP socket for each port of the listener's group, each with SO_REUSEPORT, and binds each
     * to the same address (to the port number the first one got, for an ephemeral one); only once all
     * are bound, and the listener with them, is each armed on its own port (its first arming reads what
     * the kernel spread to it meanwhile). No socket is served, and so none fails and closes, before its
     * listener knows them all. A failure part-way closes every socket opened so far.
     */
    private List<SocketTurn> bindUdpPerWorker(Listener listener, InetSocketAddress target, boolean dualStack, boolean coalesce) {
        ListenerSettings settings = listener.settings();
        int count = listener.profile.ports();
        List<SocketTurn> made = new ArrayList<>(count);
        InetSocketAddress bound = null;
        long handle = -1;
        InetSocketAddress where = target;
        try {
            for (int i = 0; i < count; i++) {
                where = (bound != null) ? bound : target;
                handle = openListening(settings, where, dualStack, true);
                UdpSocket socket = new UdpSocket(listener, listener.profile.homeOn(i), handle, coalesce);
                made.add(socket);
                handle = -1;
                this.sockets.bind(socket.handle, where);
                if (bound == null) {
                    bound = (InetSocketAddress) this.sockets.localAddress(socket.handle);
                }
            }
        }
        catch (NativeIoException | RuntimeException ex) {
            // Neither armed nor in the table yet: their descriptors are all there is to close.
            for (SocketTurn socket : made) {
                closeQuietly(socket.handle);
            }
            if (handle != -1) {
                closeQuietly(handle);
            }
            if (ex instanceof NativeIoException failure) {
                throw new ListenerBindException(settings.name(), where, failure);
            }
            throw (RuntimeException) ex;
        }
        listener.bound(made, bound);
        registerAll(listener, made);
        return made;
    }

    /**
     * @return whether the system spreads the connections (or datagrams) over sockets that share a port: a
     * Linux kernel, with SO_REUSEPORT (a probe socket takes it); elsewhere the listener accepts (or
     * receives) on one socket, as when shared, which is logged
     */
    private boolean spreads(ListenerSettings settings, InetSocketAddress target, int workers) {
        String why = null;
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            why = "this system (" + System.getProperty("os.name") + ") does not spread connections over sockets sharing a port number";
        }
        else {
            long probe = openSocket(settings, target);
            try {
                this.sockets.setOption(probe, NativeSocketOption.REUSE_PORT, 1);
            }
            catch (NativeIoException ex) {
                why = "this backend has no SO_REUSEPORT (" + ex.getMessage() + ")";
            }
            finally {
                closeQuietly(probe);
            }
        }
        if (why != null) {
            logger.log(Level.INFO, (settings.protocol() == Protocol.UDP)
                    ? "Listener '" + settings.name() + "' receives per worker, but " + why.replace("connections", "datagrams") + ": one"
                            + " socket receives for its " + workers + " workers, as with receive shared"
                    : "Listener '" + settings.name() + "' accepts per worker, but " + why + ": one listening socket"
                            + " accepts for its " + workers + " workers, as with accept shared");
        }
        return why == null;
    }

    /**
     * @return whether the backend and the system coalesce the datagrams a UDP socket receives (UDP_GRO: a
     * probe socket takes it); where not, the listener receives each datagram alone, which is logged
     */
    private boolean coalesces(ListenerSettings settings, InetSocketAddress target) {
        String why = this.sockets.unsupported(NativeSocketOption.RECEIVE_COALESCED, 1);
        if (why == null) {
            long probe = openSocket(settings, target);
            try {
                this.sockets.setOption(probe, NativeSocketOption.RECEIVE_COALESCED, 1);
            }
            catch (NativeIoException ex) {
                why = "the system refused to coalesce them (" + ex.getMessage() + ")";
            }
            finally {
                closeQuietly(probe);
            }
        }
        if (why != null) {
            logger.log(Level.INFO, "Listener '" + settings.name() + "' asks for coalesced datagrams, but " + why
                    + ": each datagram is received alone");
        }
        return why == null;
    }

    /**
     * Opens a listener's socket and sets its options, not bound yet.
     * @param reusePort whether to set SO_REUSEPORT
     * @return the socket
     * @throws ListenerBindException when it cannot be opened or configured, the socket closed again
     */
    private long openListening(ListenerSettings settings, InetSocketAddress target, boolean dualStack, boolean reusePort) {
        long handle = openSocket(settings, target);
        try {
            if (dualStack && target.getAddress() instanceof Inet6Address) {
                this.sockets.setOption(handle, NativeSocketOption.IPV6_ONLY, 0);
            }
            if (settings.reuseAddress()) {
                this.sockets.setOption(handle, NativeSocketOption.REUSE_ADDRESS, 1);
            }
            if (reusePort) {
                this.sockets.setOption(handle, NativeSocketOption.REUSE_PORT, 1);
            }
            SocketOptionList options = inheritedOptions(settings, target);
            for (int i = 0; i < options.size(); i++) {
                if (options.option(i) == NativeSocketOption.TCP_NODELAY) {
                    setNoDelayToInherit(handle, settings);
                }
                else {
                    this.sockets.setOption(handle, options.option(i), options.value(i));
                }
            }
            if (settings.fastOpenQueue() > 0) {
                // Before listen, which sizes the queue of connections opened with data.
                this.sockets.setOption(handle, NativeSocketOption.FAST_OPEN, settings.fastOpenQueue());
            }
            return handle;
        }
        catch (NativeIoException ex) {
            closeQuietly(handle);
            throw new ListenerBindException(settings.name(), target, ex);
        }
    }

    /**
     * @return the options of the listener's sockets: set on its listening socket (or its UDP socket) before
     * it binds, and expected on the sockets it accepts
     */
    private static SocketOptionList inheritedOptions(ListenerSettings settings, InetSocketAddress target) {
        return SocketOptionList.of(settings.connection().socketOptions(), settings.protocol(), target.getAddress() instanceof Inet6Address,
                false);
    }

    private long openSocket(ListenerSettings settings, InetSocketAddress target) {
        StandardProtocolFamily family = (target.getAddress() instanceof Inet6Address) ? StandardProtocolFamily.INET6
                : StandardProtocolFamily.INET;
        try {
            return this.sockets.open(settings.protocol(), family);
        }
        catch (NativeIoException ex) {
            throw new ListenerBindException(settings.name(), target, ex);
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
        if (!listener.profile.enter(socket)) {
            throw new IllegalStateException("No room for " + socket);
        }
        listener.profile.letGo(socket);
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
