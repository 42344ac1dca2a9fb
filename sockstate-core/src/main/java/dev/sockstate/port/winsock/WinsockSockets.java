package dev.sockstate.port.winsock;

import dev.sockstate.port.AbstractNativeSockets;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.SocketAddressLayout;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.Protocol;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;

/**
 * Non-blocking Winsock sockets: the {@code SOCKET} handles a {@link WinsockPort} registers. Sockets
 * are made with {@code WSASocketW} (not inherited by child processes) and switched to non-blocking
 * mode with {@code ioctlsocket(FIONBIO)}; {@code WSAEWOULDBLOCK} is a result, not an exception.
 * Each call is made on the {@link WinsockCalls} the backend gave. {@code WSAStartup} has been
 * called by {@link WinsockBackend} before an instance exists.
 */
final class WinsockSockets extends AbstractNativeSockets {

    private static final SocketAddressLayout LAYOUT = new SocketAddressLayout(WinsockNative.AF_INET, WinsockNative.AF_INET6);

    private final WinsockCalls calls;

    /** @param calls the binding the sockets call Winsock through */
    WinsockSockets(WinsockCalls calls) {
        this.calls = calls;
    }

    /** @return the binding the sockets call Winsock through, which their port shares */
    WinsockCalls calls() {
        return this.calls;
    }

    @Override
    public long open(Protocol protocol, StandardProtocolFamily family) throws NativeIoException {
        int domain = switch (family) {
            case INET -> WinsockNative.AF_INET;
            case INET6 -> WinsockNative.AF_INET6;
            default -> throw new IllegalArgumentException("Protocol family " + family + " is not supported; use INET or INET6");
        };
        boolean tcp = protocol == Protocol.TCP;
        long socket = this.calls.WSASocketW(domain, tcp ? WinsockNative.SOCK_STREAM : WinsockNative.SOCK_DGRAM,
                tcp ? WinsockNative.IPPROTO_TCP : WinsockNative.IPPROTO_UDP, 0, 0,
                WinsockNative.WSA_FLAG_OVERLAPPED | WinsockNative.WSA_FLAG_NO_HANDLE_INHERIT);
        if (socket == WinsockNative.INVALID_SOCKET) {
            throw WsaError.last(this.calls, "WSASocketW");
        }
        try {
            makeNonBlocking(socket);
            if (!tcp) {
                ignorePortUnreachable(socket);
            }
            return socket;
        }
        catch (NativeIoException ex) {
            this.calls.closesocket(socket);
            throw ex;
        }
    }

    private void makeNonBlocking(long socket) throws NativeIoException {
        try (Scratch local = scratch()) {
            NativeBuffer holder = local.option();
            holder.buffer().putInt(0, 1);
            if (this.calls.ioctlsocket(socket, WinsockNative.FIONBIO, holder.address()) != 0) {
                throw WsaError.last(this.calls, "ioctlsocket(FIONBIO)");
            }
        }
    }

    /**
     * Without this, an ICMP port-unreachable answering one of a UDP socket's datagrams makes its next
     * {@code recvfrom} fail with {@code WSAECONNRESET}, which Linux never does on an unconnected socket.
     */
    private void ignorePortUnreachable(long socket) throws NativeIoException {
        try (Scratch local = scratch()) {
            NativeBuffer holder = local.option();
            holder.buffer().putInt(0, 0).putInt(4, 0);
            if (this.calls.WSAIoctl(socket, WinsockNative.SIO_UDP_CONNRESET, holder.address(), 4, 0, 0,
                    holder.address() + 4, 0, 0) != 0) {
                throw WsaError.last(this.calls, "WSAIoctl(SIO_UDP_CONNRESET)");
            }
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * On Windows the socket is bound with {@code SO_EXCLUSIVEADDRUSE}, as the JDK binds there: no
     * other socket can bind the port while this one has it, nor, while connections it accepted are
     * still active, after it closed.
     */
    @Override
    public void bind(long socket, InetSocketAddress address) throws NativeIoException {
        try (Scratch local = scratch()) {
            // Without it, a socket with SO_REUSEADDR could bind the same port while this one listens,
            // and take or split its traffic.
            NativeBuffer holder = local.option();
            holder.buffer().putInt(0, 1);
            if (this.calls.setsockopt(socket, WinsockNative.SOL_SOCKET, WinsockNative.SO_EXCLUSIVEADDRUSE, holder.address(), 4) != 0) {
                throw WsaError.last(this.calls, "setsockopt(SO_EXCLUSIVEADDRUSE)");
            }
            int length = LAYOUT.encode(address, local.address().buffer());
            if (this.calls.bind(socket, local.address().address(), length) != 0) {
                throw WsaError.last(this.calls, "bind(" + address + ")");
            }
        }
    }

    @Override
    public void listen(long socket, int backlog) throws NativeIoException {
        if (this.calls.listen(socket, backlog) != 0) {
            throw WsaError.last(this.calls, "listen");
        }
    }

    @Override
    public long accept(long listener) throws NativeIoException {
        long socket = this.calls.accept(listener, 0, 0);
        if (socket == WinsockNative.INVALID_SOCKET) {
            int code = this.calls.lastError();
            if (code == WsaError.WSAEWOULDBLOCK) {
                return NO_SOCKET;
            }
            throw WsaError.exception("accept", code);
        }
        try {
            makeNonBlocking(socket);
            return socket;
        }
        catch (NativeIoException ex) {
            this.calls.closesocket(socket);
            throw ex;
        }
    }

    @Override
    public boolean connect(long socket, InetSocketAddress address) throws NativeIoException {
        try (Scratch local = scratch()) {
            int length = LAYOUT.encode(address, local.address().buffer());
            if (this.calls.connect(socket, local.address().address(), length) == 0) {
                return true;
            }
            int code = this.calls.lastError();
            if (code == WsaError.WSAEWOULDBLOCK || code == WsaError.WSAEINPROGRESS) {
                return false;
            }
            throw WsaError.exception("connect(" + address + ")", code);
        }
    }

    @Override
    public int recv(long socket, NativeBuffer buffer) throws NativeIoException {
        ByteBuffer target = buffer.buffer();
        int position = target.position();
        int read = this.calls.recv(socket, buffer.address() + position, target.limit() - position, 0);
        if (read >= 0) {
            target.position(position + read);
            return read;
        }
        return wouldBlockOr("recv");
    }

    @Override
    public int send(long socket, NativeBuffer buffer) throws NativeIoException {
        ByteBuffer source = buffer.buffer();
        int position = source.position();
        int sent = this.calls.send(socket, buffer.address() + position, source.limit() - position, 0);
        if (sent >= 0) {
            source.position(position + sent);
            return sent;
        }
        return wouldBlockOr("send");
    }

    /**
     * {@inheritDoc}
     * <p>
     * Winsock does not tell the length of a datagram longer than the buffer: it fills the buffer and
     * fails with {@code WSAEMSGSIZE}. That datagram is returned truncated, its length reported as the
     * buffer's room.
     */
    @Override
    public int receiveFrom(long socket, NativeBuffer buffer, PeerAddress sender) throws NativeIoException {
        try (Scratch local = scratch()) {
            NativeBuffer address = local.address();
            long addressLength = local.addressToFill();
            ByteBuffer target = buffer.buffer();
            int position = target.position();
            int room = target.limit() - position;
            int read = this.calls.recvfrom(socket, buffer.address() + position, room, 0,
                    address.address(), addressLength);
            if (read < 0) {
                int code = this.calls.lastError();
                if (code == WsaError.WSAEWOULDBLOCK) {
                    return WOULD_BLOCK;
                }
                if (code != WsaError.WSAEMSGSIZE) {
                    throw WsaError.exception("recvfrom", code);
                }
                read = room;
            }
            target.position(position + read);
            LAYOUT.decode(address.buffer(), local.bytes(), sender);
            return read;
        }
    }

    @Override
    public int sendTo(long socket, NativeBuffer buffer, PeerAddress target) throws NativeIoException {
        try (Scratch local = scratch()) {
            int length = LAYOUT.encode(target, local.bytes(), local.address().buffer());
            ByteBuffer source = buffer.buffer();
            int position = source.position();
            int sent = this.calls.sendto(socket, buffer.address() + position, source.limit() - position, 0,
                    local.address().address(), length);
            if (sent >= 0) {
                source.position(position + sent);
                return sent;
            }
            return wouldBlockOr("sendto");
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * {@link NativeSocketOption#REUSE_PORT} does not exist on Windows and fails with
     * {@link NativeError#NOT_SUPPORTED}. {@link NativeSocketOption#REUSE_ADDRESS} is accepted and not
     * set: Windows lets a listener bind a port whose old connections are in TIME_WAIT without it, and
     * its {@code SO_REUSEADDR} would let another socket bind a port in active use (every socket this
     * backend binds is bound with {@code SO_EXCLUSIVEADDRUSE}, see {@link #bind}).
     */
    @Override
    public void setOption(long socket, NativeSocketOption option, int value) throws NativeIoException {
        requireSupported(option, "setsockopt");
        if (option == NativeSocketOption.REUSE_ADDRESS) {
            return;
        }
        try (Scratch local = scratch()) {
            NativeBuffer holder = local.option();
            holder.buffer().putInt(0, value);
            if (this.calls.setsockopt(socket, level(option), name(option), holder.address(), 4) != 0) {
                throw WsaError.last(this.calls, "setsockopt(" + option + ")");
            }
        }
    }

    @Override
    public int getOption(long socket, NativeSocketOption option) throws NativeIoException {
        requireSupported(option, "getsockopt");
        return intOption(socket, level(option), name(option), option.name());
    }

    private static void requireSupported(NativeSocketOption option, String call) throws NativeIoException {
        if (option == NativeSocketOption.REUSE_PORT) {
            throw new NativeIoException(call + "(" + option + ")", NativeError.NOT_SUPPORTED, WsaError.WSAENOPROTOOPT,
                    "SO_REUSEPORT does not exist on Windows");
        }
    }

    @Override
    public NativeIoException takeError(long socket) throws NativeIoException {
        int code = intOption(socket, WinsockNative.SOL_SOCKET, WinsockNative.SO_ERROR, "SO_ERROR");
        return (code == 0) ? null : WsaError.exception("SO_ERROR", code);
    }

    private int intOption(long socket, int level, int name, String label) throws NativeIoException {
        try (Scratch local = scratch()) {
            NativeBuffer holder = local.option();
            holder.buffer().putInt(0, 0).putInt(4, 4);
            if (this.calls.getsockopt(socket, level, name, holder.address(), holder.address() + 4) != 0) {
                throw WsaError.last(this.calls, "getsockopt(" + label + ")");
            }
            return holder.buffer().getInt(0);
        }
    }

    @Override
    public void shutdown(long socket, boolean input, boolean output) throws NativeIoException {
        if (!input && !output) {
            return;
        }
        int how = (input && output) ? WinsockNative.SD_BOTH : (input ? WinsockNative.SD_RECEIVE : WinsockNative.SD_SEND);
        if (this.calls.shutdown(socket, how) != 0) {
            throw WsaError.last(this.calls, "shutdown");
        }
    }

    @Override
    public void close(long socket) throws NativeIoException {
        if (this.calls.closesocket(socket) != 0) {
            throw WsaError.last(this.calls, "closesocket");
        }
    }

    @Override
    public InetSocketAddress localAddress(long socket) throws NativeIoException {
        return name(socket, true);
    }

    @Override
    public InetSocketAddress remoteAddress(long socket) throws NativeIoException {
        return name(socket, false);
    }

    private InetSocketAddress name(long socket, boolean local) throws NativeIoException {
        try (Scratch scratch = scratch()) {
            NativeBuffer address = scratch.address();
            long lengthAddress = scratch.addressToFill();
            int result = local ? this.calls.getsockname(socket, address.address(), lengthAddress)
                    : this.calls.getpeername(socket, address.address(), lengthAddress);
            if (result != 0) {
                throw WsaError.last(this.calls, local ? "getsockname" : "getpeername");
            }
            return LAYOUT.decode(address.buffer());
        }
    }

    private int wouldBlockOr(String call) throws NativeIoException {
        int code = this.calls.lastError();
        if (code == WsaError.WSAEWOULDBLOCK) {
            return WOULD_BLOCK;
        }
        throw WsaError.exception(call, code);
    }

    private static int level(NativeSocketOption option) {
        return switch (option) {
            case TCP_NODELAY -> WinsockNative.IPPROTO_TCP;
            case IPV6_ONLY -> WinsockNative.IPPROTO_IPV6;
            default -> WinsockNative.SOL_SOCKET;
        };
    }

    private static int name(NativeSocketOption option) {
        return switch (option) {
            case REUSE_ADDRESS -> WinsockNative.SO_REUSEADDR;
            case TCP_NODELAY -> WinsockNative.TCP_NODELAY;
            case RECEIVE_BUFFER -> WinsockNative.SO_RCVBUF;
            case SEND_BUFFER -> WinsockNative.SO_SNDBUF;
            case KEEP_ALIVE -> WinsockNative.SO_KEEPALIVE;
            case IPV6_ONLY -> WinsockNative.IPV6_V6ONLY;
            case REUSE_PORT -> throw new IllegalArgumentException("SO_REUSEPORT does not exist on Windows");
        };
    }

    @Override
    protected long addressOf(ByteBuffer direct) {
        return this.calls.addressOf(direct);
    }
}
