package dev.sockstate.port.nio;

import dev.sockstate.port.AbstractNativeSockets;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.Protocol;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.MembershipKey;
import java.nio.channels.NetworkChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.jspecify.annotations.Nullable;

/**
 * Sockets as JDK channels behind {@code long} handles ({@link HandleTable}); see {@link NioSocket}
 * for how a TCP socket becomes a listening channel. recv and send hand the {@link NativeBuffer}'s
 * own direct buffer to the channel: no copy, no native address (it is zero on this backend), no
 * allocation. A read of zero bytes is a would-block, end of stream is zero; a would-block is told
 * to the socket's ports, which re-arm an edge-triggered registration.
 * <p>
 * What the JDK cannot do is refused by name: SO_ERROR is not readable (a connect's outcome comes
 * from {@code finishConnect}, which closes the channel when it failed), IPV6_V6ONLY cannot be set
 * (IPv6 channels are dual-stack), a listening channel's backlog is fixed when it binds, and a
 * received datagram's length is what the buffer took (the JDK drops the excess unseen).
 */
final class NioSockets extends AbstractNativeSockets {

    /** The backlog a TCP socket listens with from its bind: the largest the system allows. */
    static final int BACKLOG_AT_BIND = Integer.MAX_VALUE;

    /** Encodes datagram addresses for comparing; the family numbers are this backend's own. */
    private final HandleTable table = new HandleTable();

    /**
     * Loads the classes that only rare paths use (errors, datagram addresses), so that a process out
     * of descriptors, which cannot open a class file, still runs them.
     */
    static void loadRarelyUsedClasses() {
        JdkErrors.exception("accept", new IOException("Too many open files")).error().ordinal();
        JdkErrors.errorOf(new ClosedChannelException()).ordinal();
        new NioSocket.CachedAddress(null, null, 0).hashCode();
    }

    /** @return the sockets by handle, which the ports look registrations up in */
    HandleTable table() {
        return this.table;
    }

    @Override
    public long open(Protocol protocol, StandardProtocolFamily family) throws NativeIoException {
        if (protocol == Protocol.UDP && family == StandardProtocolFamily.UNIX) {
            throw JdkErrors.exception("socket(UDP, UNIX)", NativeError.NOT_SUPPORTED, "the JDK has no Unix domain datagram channel");
        }
        NioSocket socket;
        try {
            if (protocol == Protocol.UDP) {
                DatagramChannel channel = DatagramChannel.open(family);
                nonBlocking(channel);
                socket = new NioSocket(protocol, family, null, channel);
            }
            else {
                SocketChannel channel = SocketChannel.open(family);
                nonBlocking(channel);
                socket = new NioSocket(protocol, family, channel, null);
            }
        }
        catch (IOException | RuntimeException ex) {
            throw JdkErrors.exception("socket(" + protocol + ", " + family + ")", ex);
        }
        return this.table.add(socket);
    }

    private static void nonBlocking(java.nio.channels.spi.AbstractSelectableChannel channel) throws IOException {
        try {
            channel.configureBlocking(false);
        }
        catch (IOException | RuntimeException ex) {
            channel.close();
            throw ex;
        }
    }

    @Override
    public void bind(long socket, SocketAddress address) throws NativeIoException {
        String call = "bind(" + address + ")";
        NioSocket found = require(socket, call);
        synchronized (found) {
            try {
                if (found.datagram != null) {
                    found.datagram.bind(address);
                    found.datagramBound = true;
                }
                else {
                    requireUnconnected(found, call);
                    listenOn(found, address, BACKLOG_AT_BIND);
                }
            }
            catch (IOException | RuntimeException ex) {
                throw JdkErrors.exception(call, ex);
            }
        }
    }

    @Override
    public void listen(long socket, int backlog) throws NativeIoException {
        NioSocket found = require(socket, "listen");
        synchronized (found) {
            if (found.listener != null) {
                // Listening since its bind, the JDK having no listen apart from bind.
                return;
            }
            if (found.datagram != null) {
                throw JdkErrors.exception("listen", NativeError.NOT_SUPPORTED, "a UDP socket does not listen");
            }
            requireUnconnected(found, "listen");
            try {
                // Not bound: listens on an ephemeral port of every address, as Linux binds one itself.
                listenOn(found, null, backlog);
            }
            catch (IOException | RuntimeException ex) {
                throw JdkErrors.exception("listen", ex);
            }
        }
    }

    /** Refuses to turn a TCP socket that is connecting, connected, listening or registered into a listener. */
    private static void requireUnconnected(NioSocket socket, String call) throws NativeIoException {
        if (socket.listener != null) {
            throw JdkErrors.exception(call, NativeError.INVALID_ARGUMENT, "the socket is bound already");
        }
        if (socket.connecting || socket.stream.isConnected()) {
            throw JdkErrors.exception(call, NativeError.INVALID_ARGUMENT, "the socket is connected");
        }
        if (socket.keyedPorts.length > 0) {
            throw JdkErrors.exception(call, NativeError.INVALID_ARGUMENT, "on the nio backend a TCP socket becomes a listening"
                    + " channel when it binds or listens, which a port cannot carry over: register it after listen");
        }
    }

    /** Swaps the socket's unconnected channel for a listening one, bound, with the options set so far. */
    private static void listenOn(NioSocket socket, @Nullable SocketAddress address, int backlog) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open(socket.family);
        try {
            server.configureBlocking(false);
            JdkOptions.copyKept(socket, server, server.supportedOptions()::contains);
            server.bind(address, backlog);
        }
        catch (IOException | RuntimeException ex) {
            server.close();
            throw ex;
        }
        SocketChannel unconnected = socket.stream;
        socket.listener = server;
        socket.stream = null;
        try {
            unconnected.close();
        }
        catch (IOException ex) {
            // Never connected nor registered: nothing was left to release.
        }
    }

    @Override
    public long accept(long listener) throws NativeIoException {
        NioSocket found = require(listener, "accept");
        ServerSocketChannel server = found.listener;
        if (server == null) {
            throw JdkErrors.exception("accept", NativeError.INVALID_ARGUMENT, "the socket does not listen");
        }
        SocketChannel accepted;
        try {
            accepted = server.accept();
        }
        catch (IOException | RuntimeException ex) {
            throw JdkErrors.exception("accept", ex);
        }
        if (accepted == null) {
            found.wouldBlock(Registration.READ_SIDE);
            return NO_SOCKET;
        }
        try {
            nonBlocking(accepted);
            // What the listening channel could not take, it kept for the sockets it accepts, as Linux makes them inherited.
            JdkOptions.copyKept(found, accepted, (name) -> !server.supportedOptions().contains(name));
        }
        catch (IOException | RuntimeException ex) {
            closeQuietly(accepted);
            throw JdkErrors.exception("accept", ex);
        }
        return this.table.add(new NioSocket(Protocol.TCP, found.family, accepted, null));
    }

    @Override
    public boolean connect(long socket, SocketAddress address) throws NativeIoException {
        String call = "connect(" + address + ")";
        NioSocket found = require(socket, call);
        boolean connected;
        synchronized (found) {
            try {
                if (found.datagram != null) {
                    found.datagram.connect(address);
                    found.datagramBound = true;
                    return true;
                }
                if (found.listener != null) {
                    throw JdkErrors.exception(call, NativeError.INVALID_ARGUMENT, "on the nio backend a bound TCP socket"
                            + " listens (the JDK binds and listens at once): connect a socket that was not bound");
                }
                connected = found.stream.connect(address);
                found.connecting = !connected;
            }
            catch (IOException | RuntimeException ex) {
                throw JdkErrors.exception(call, ex);
            }
        }
        if (!connected) {
            found.interestChanged();
        }
        return connected;
    }

    @Override
    public int recv(long socket, NativeBuffer buffer) throws NativeIoException {
        NioSocket found = require(socket, "recv");
        ByteChannel channel = found.bytes();
        if (channel == null) {
            throw JdkErrors.exception("recv", NativeError.NOT_CONNECTED, "a listening socket has no data; accept");
        }
        ByteBuffer target = buffer.buffer();
        if (!target.hasRemaining()) {
            return 0;
        }
        int read;
        try {
            if ((found.connecting || found.connectFailure != null) && found.stillConnecting()) {
                return WOULD_BLOCK;
            }
            read = channel.read(target);
        }
        catch (IOException | RuntimeException ex) {
            throw JdkErrors.exception("recv", ex);
        }
        if (read > 0) {
            return read;
        }
        if (read < 0) {
            return 0;
        }
        found.wouldBlock(Registration.READ_SIDE);
        return WOULD_BLOCK;
    }

    @Override
    public int send(long socket, NativeBuffer buffer) throws NativeIoException {
        NioSocket found = require(socket, "send");
        ByteChannel channel = found.bytes();
        if (channel == null) {
            throw JdkErrors.exception("send", NativeError.NOT_CONNECTED, "a listening socket sends nothing");
        }
        ByteBuffer source = buffer.buffer();
        int remaining = source.remaining();
        if (remaining == 0) {
            return 0;
        }
        int sent;
        try {
            if ((found.connecting || found.connectFailure != null) && found.stillConnecting()) {
                return WOULD_BLOCK;
            }
            sent = channel.write(source);
        }
        catch (ClosedChannelException ex) {
            throw channel.isOpen() ? JdkErrors.exception("send", NativeError.BROKEN_PIPE, "the socket's output was shut down")
                    : JdkErrors.exception("send", ex);
        }
        catch (IOException | RuntimeException ex) {
            throw JdkErrors.exception("send", ex);
        }
        if (sent < remaining) {
            // Full: the next room is an edge.
            found.wouldBlock(Registration.WRITE_SIDE);
        }
        return (sent == 0) ? WOULD_BLOCK : sent;
    }

    @Override
    public int receiveFrom(long socket, NativeBuffer buffer, PeerAddress sender) throws NativeIoException {
        NioSocket found = require(socket, "recvfrom");
        DatagramChannel channel = requireDatagram(found, "recvfrom");
        if (!found.datagramBound) {
            // The JDK would bind it (a registration made before the bind, as the reference does, reads at once).
            return WOULD_BLOCK;
        }
        ByteBuffer target = buffer.buffer();
        int position = target.position();
        SocketAddress from;
        try {
            from = channel.receive(target);
        }
        catch (IOException | RuntimeException ex) {
            throw JdkErrors.exception("recvfrom", ex);
        }
        if (from == null) {
            found.wouldBlock(Registration.READ_SIDE);
            return WOULD_BLOCK;
        }
        try (Scratch local = scratch()) {
            DatagramAddresses.storeSender(found, (InetSocketAddress) from, sender, local.bytes());
        }
        return target.position() - position;
    }

    @Override
    public int sendTo(long socket, NativeBuffer buffer, PeerAddress target) throws NativeIoException {
        NioSocket found = require(socket, "sendto");
        DatagramChannel channel = requireDatagram(found, "sendto");
        InetSocketAddress address;
        try (Scratch local = scratch()) {
            address = DatagramAddresses.targetAddress(found, target, local.bytes(), local.address().buffer());
        }
        ByteBuffer source = buffer.buffer();
        int remaining = source.remaining();
        int sent;
        try {
            sent = channel.send(source, address);
            if (!found.datagramBound) {
                found.datagramBound = true;
            }
        }
        catch (IOException | RuntimeException ex) {
            throw JdkErrors.exception("sendto", ex);
        }
        if (sent == 0 && remaining > 0) {
            found.wouldBlock(Registration.WRITE_SIDE);
            return WOULD_BLOCK;
        }
        return sent;
    }

    private static DatagramChannel requireDatagram(NioSocket socket, String call) throws NativeIoException {
        if (socket.datagram == null) {
            throw JdkErrors.exception(call, NativeError.NOT_SUPPORTED, "socket " + socket.handle + " is not a UDP socket");
        }
        return socket.datagram;
    }

    @Override
    public void setOption(long socket, NativeSocketOption option, int value) throws NativeIoException {
        String call = "setsockopt(" + option + ")";
        JdkOptions.set(require(socket, call), option, value, call);
    }

    @Override
    public @Nullable String unsupported(NativeSocketOption option, int value) {
        if (option == NativeSocketOption.LINGER && value > 0) {
            return "the JDK's socket channels turn SO_LINGER off as they close while registered with a selector, so a positive"
                    + " linger would never hold; a linger of 0 (a reset at close) is taken";
        }
        return JdkOptions.unsupported(option);
    }

    @Override
    public int getOption(long socket, NativeSocketOption option) throws NativeIoException {
        String call = "getsockopt(" + option + ")";
        return JdkOptions.get(require(socket, call), option, call);
    }

    /**
     * The outcome of a connect under way, from {@code finishConnect}: the JDK reads no SO_ERROR, so
     * a socket that is not connecting has none to report.
     */
    @Override
    public @Nullable NativeIoException takeError(long socket) throws NativeIoException {
        NioSocket found = require(socket, "SO_ERROR");
        SocketChannel channel = found.stream;
        IOException failed = found.connectFailure;
        if (failed != null) {
            // The port ended the connect for a registration that asked for input only; read once, as SO_ERROR is.
            found.connectFailure = null;
            return JdkErrors.exception("connect", failed);
        }
        if (channel == null || !found.connecting) {
            return null;
        }
        NativeIoException error = null;
        try {
            if (!channel.finishConnect()) {
                return null;
            }
        }
        catch (IOException | RuntimeException ex) {
            // The JDK closed the channel: every later call but close is refused.
            error = JdkErrors.exception("connect", ex);
        }
        found.connecting = false;
        found.interestChanged();
        return error;
    }

    @Override
    public void shutdown(long socket, boolean input, boolean output) throws NativeIoException {
        NioSocket found = require(socket, "shutdown");
        if (!input && !output) {
            return;
        }
        SocketChannel channel = found.stream;
        if (channel == null) {
            throw JdkErrors.exception("shutdown", NativeError.NOT_CONNECTED, "only a TCP connection shuts down");
        }
        try {
            if (input) {
                channel.shutdownInput();
            }
            if (output) {
                channel.shutdownOutput();
            }
        }
        catch (IOException | RuntimeException ex) {
            throw JdkErrors.exception("shutdown", ex);
        }
    }

    /** Takes the handle out, ends its registrations silently, closes the channel and lets the ports deregister it. */
    @Override
    public void close(long socket) throws NativeIoException {
        NioSocket found = this.table.remove(socket);
        if (found == null) {
            throw JdkErrors.exception("close", NativeError.BAD_DESCRIPTOR, "socket handle " + socket + " is not open");
        }
        for (Registration registration : found.registrations) {
            registration.port.socketClosing(registration);
        }
        IOException failure = null;
        try {
            found.selectable().close();
        }
        catch (IOException ex) {
            failure = ex;
        }
        for (NioPort port : found.keyedPorts) {
            port.socketClosed();
        }
        if (failure != null) {
            throw JdkErrors.exception("close", failure);
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        }
        catch (IOException ex) {
            // Failing already: the first failure is the one reported.
        }
    }

    @Override
    public SocketAddress localAddress(long socket) throws NativeIoException {
        NioSocket found = require(socket, "getsockname");
        try {
            SocketAddress bound = ((NetworkChannel) found.selectable()).getLocalAddress();
            if (bound != null || found.family == StandardProtocolFamily.UNIX) {
                return (bound != null) ? bound : java.net.UnixDomainSocketAddress.of("");
            }
            InetAddress any = InetAddress.getByAddress(new byte[(found.family == StandardProtocolFamily.INET6) ? 16 : 4]);
            return new InetSocketAddress(any, 0);
        }
        catch (IOException | RuntimeException ex) {
            throw JdkErrors.exception("getsockname", ex);
        }
    }

    @Override
    public SocketAddress remoteAddress(long socket) throws NativeIoException {
        NioSocket found = require(socket, "getpeername");
        try {
            SocketAddress peer = (found.datagram != null) ? found.datagram.getRemoteAddress()
                    : (found.stream != null) ? found.stream.getRemoteAddress() : null;
            if (peer == null) {
                throw JdkErrors.exception("getpeername", NativeError.NOT_CONNECTED, "socket " + socket + " is not connected");
            }
            return peer;
        }
        catch (IOException | RuntimeException ex) {
            throw JdkErrors.exception("getpeername", ex);
        }
    }

    /** @return zero: nothing native reads a buffer's address on this backend */
    @Override
    protected long addressOf(ByteBuffer direct) {
        return 0;
    }

    @Override
    public @Nullable String multicastUnsupported() {
        return null;
    }

    @Override
    public boolean joinsOnAnyInterface() {
        return false;
    }

    /**
     * {@inheritDoc}
     * <p>
     * The JDK joins a group on a named interface only: an interface index of 0 is refused.
     */
    @Override
    public void joinGroup(long socket, InetAddress group, int interfaceIndex, @Nullable InetAddress source) throws NativeIoException {
        String call = "join(" + group.getHostAddress() + ((source != null) ? " from " + source.getHostAddress() : "") + ")";
        DatagramChannel channel = datagramChannel(socket, call);
        NetworkInterface networkInterface = networkInterface(interfaceIndex, call);
        try {
            MembershipKey key = (source != null) ? channel.join(group, networkInterface, source) : channel.join(group, networkInterface);
            require(socket, call).memberships.add(key);
        }
        catch (IOException | RuntimeException ex) {
            throw JdkErrors.exception(call, ex);
        }
    }

    @Override
    public void leaveGroup(long socket, InetAddress group, int interfaceIndex, @Nullable InetAddress source) throws NativeIoException {
        String call = "leave(" + group.getHostAddress() + ((source != null) ? " from " + source.getHostAddress() : "") + ")";
        NioSocket found = require(socket, call);
        NetworkInterface networkInterface = networkInterface(interfaceIndex, call);
        for (MembershipKey key : found.memberships) {
            if (key.group().equals(group) && key.networkInterface().equals(networkInterface) && java.util.Objects.equals(key.sourceAddress(), source)) {
                key.drop();
                found.memberships.remove(key);
                return;
            }
        }
        throw JdkErrors.exception(call, NativeError.INVALID_ARGUMENT, "the socket has not joined the group so");
    }

    @Override
    public void sendMulticast(long socket, StandardProtocolFamily family, int interfaceIndex, int hops, boolean loopback)
            throws NativeIoException {
        String call = "sendMulticast";
        DatagramChannel channel = datagramChannel(socket, call);
        try {
            channel.setOption(StandardSocketOptions.IP_MULTICAST_TTL, hops);
            channel.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, loopback);
            if (interfaceIndex > 0) {
                channel.setOption(StandardSocketOptions.IP_MULTICAST_IF, networkInterface(interfaceIndex, call));
            }
        }
        catch (IOException | RuntimeException ex) {
            throw JdkErrors.exception(call, ex);
        }
    }

    private DatagramChannel datagramChannel(long socket, String call) throws NativeIoException {
        DatagramChannel channel = require(socket, call).datagram;
        if (channel == null) {
            throw JdkErrors.exception(call, NativeError.INVALID_ARGUMENT, "socket handle " + socket + " is not a UDP socket");
        }
        return channel;
    }

    private static NetworkInterface networkInterface(int index, String call) throws NativeIoException {
        try {
            NetworkInterface found = (index > 0) ? NetworkInterface.getByIndex(index) : null;
            if (found == null) {
                throw JdkErrors.exception(call, NativeError.INVALID_ARGUMENT, (index > 0) ? "no network interface has index " + index
                        : "the JDK joins multicast groups on a named network interface only");
            }
            return found;
        }
        catch (java.net.SocketException ex) {
            throw JdkErrors.exception(call, ex);
        }
    }

    private NioSocket require(long socket, String call) throws NativeIoException {
        NioSocket found = this.table.get(socket);
        if (found == null) {
            throw JdkErrors.exception(call, NativeError.BAD_DESCRIPTOR, "socket handle " + socket + " is not open");
        }
        return found;
    }
}
