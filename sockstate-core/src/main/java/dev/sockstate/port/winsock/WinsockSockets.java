package dev.sockstate.port.winsock;

import dev.sockstate.port.AbstractBsdSockets;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.Protocol;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Non-blocking Winsock sockets: the {@code SOCKET} handles a {@link WinsockPort} registers. Sockets
 * are made with {@code WSASocketW} (not inherited by child processes) and switched to non-blocking
 * mode with {@code ioctlsocket(FIONBIO)}; {@code WSAEWOULDBLOCK} is a result, not an exception.
 * Each call is made on the {@link WinsockCalls} the backend gave. {@code WSAStartup} has been
 * called by {@link WinsockBackend} before an instance exists.
 */
final class WinsockSockets extends AbstractBsdSockets {

    private static final Constants CONSTANTS = new Constants(WinsockNative.AF_INET, WinsockNative.AF_INET6,
            WinsockNative.AF_UNIX, WinsockNative.SOL_SOCKET, WinsockNative.SO_ERROR, Constants.NO_OPTION, options(), Short.BYTES,
            WsaError.WSAENOPROTOOPT, "accept", "closesocket");

    private final WinsockCalls calls;

    /** The options Windows has; the others are refused with {@link #absence}'s words. */
    private static Map<NativeSocketOption, OptionName> options() {
        Map<NativeSocketOption, OptionName> options = new EnumMap<>(NativeSocketOption.class);
        options.put(NativeSocketOption.REUSE_ADDRESS, new OptionName(WinsockNative.SOL_SOCKET, WinsockNative.SO_REUSEADDR));
        options.put(NativeSocketOption.TCP_NODELAY, new OptionName(IPPROTO_TCP, WinsockNative.TCP_NODELAY));
        options.put(NativeSocketOption.RECEIVE_BUFFER, new OptionName(WinsockNative.SOL_SOCKET, WinsockNative.SO_RCVBUF));
        options.put(NativeSocketOption.SEND_BUFFER, new OptionName(WinsockNative.SOL_SOCKET, WinsockNative.SO_SNDBUF));
        options.put(NativeSocketOption.KEEP_ALIVE, new OptionName(WinsockNative.SOL_SOCKET, WinsockNative.SO_KEEPALIVE));
        options.put(NativeSocketOption.IPV6_ONLY, new OptionName(IPPROTO_IPV6, WinsockNative.IPV6_V6ONLY));
        options.put(NativeSocketOption.KEEP_ALIVE_IDLE, new OptionName(IPPROTO_TCP, WinsockNative.TCP_KEEPIDLE));
        options.put(NativeSocketOption.KEEP_ALIVE_INTERVAL, new OptionName(IPPROTO_TCP, WinsockNative.TCP_KEEPINTVL));
        options.put(NativeSocketOption.KEEP_ALIVE_COUNT, new OptionName(IPPROTO_TCP, WinsockNative.TCP_KEEPCNT));
        options.put(NativeSocketOption.LINGER, new OptionName(WinsockNative.SOL_SOCKET, WinsockNative.SO_LINGER));
        return options;
    }

    /** @param calls the binding the sockets call Winsock through */
    WinsockSockets(WinsockCalls calls) {
        super(CONSTANTS);
        this.calls = calls;
    }

    /** @return the binding the sockets call Winsock through, which their port shares */
    WinsockCalls calls() {
        return this.calls;
    }

    @Override
    protected int lastError() {
        return this.calls.lastError();
    }

    @Override
    protected boolean isWouldBlock(int code) {
        return code == WsaError.WSAEWOULDBLOCK;
    }

    @Override
    protected boolean isInterrupted(int code) {
        return code == WsaError.WSAEINTR;
    }

    @Override
    protected boolean isConnectPending(int code) {
        return code == WsaError.WSAEWOULDBLOCK || code == WsaError.WSAEINPROGRESS;
    }

    /** Winsock fills the buffer with the start of a longer datagram and fails with {@code WSAEMSGSIZE}. */
    @Override
    protected boolean isTruncated(int code) {
        return code == WsaError.WSAEMSGSIZE;
    }

    @Override
    protected NativeIoException exception(String call, int code) {
        return WsaError.exception(call, code);
    }

    @Override
    protected long openSocket(int domain, Protocol protocol) throws NativeIoException {
        boolean tcp = protocol == Protocol.TCP;
        boolean unix = domain == WinsockNative.AF_UNIX;
        if (unix && !tcp) {
            throw new NativeIoException("WSASocketW(AF_UNIX, SOCK_DGRAM)", NativeError.NOT_SUPPORTED, WsaError.WSAESOCKTNOSUPPORT,
                    "Windows has Unix domain stream sockets only, no datagram ones");
        }
        // AF_UNIX takes protocol 0; the IP families name theirs.
        int ipProtocol = unix ? 0 : (tcp ? WinsockNative.IPPROTO_TCP : WinsockNative.IPPROTO_UDP);
        long socket = this.calls.WSASocketW(domain, tcp ? WinsockNative.SOCK_STREAM : WinsockNative.SOCK_DGRAM, ipProtocol, 0, 0,
                WinsockNative.WSA_FLAG_OVERLAPPED | WinsockNative.WSA_FLAG_NO_HANDLE_INHERIT);
        if (socket == WinsockNative.INVALID_SOCKET) {
            throw lastException("WSASocketW");
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

    /** An accepted socket is switched to non-blocking mode: Windows does not inherit it from the listener. */
    @Override
    protected void accepted(long socket) throws NativeIoException {
        makeNonBlocking(socket);
    }

    private void makeNonBlocking(long socket) throws NativeIoException {
        try (Scratch local = scratch()) {
            NativeBuffer holder = local.option();
            holder.buffer().putInt(0, 1);
            if (this.calls.ioctlsocket(socket, WinsockNative.FIONBIO, holder.address()) != 0) {
                throw lastException("ioctlsocket(FIONBIO)");
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
                throw lastException("WSAIoctl(SIO_UDP_CONNRESET)");
            }
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * On Windows the socket is bound with {@code SO_EXCLUSIVEADDRUSE}, as the JDK binds there: no
     * other socket can bind the port while this one has it, nor, while connections it accepted are
     * still active, after it closed. A Unix domain socket's path is bound as it is: the file is its own
     * exclusion.
     */
    @Override
    public void bind(long socket, SocketAddress address) throws NativeIoException {
        if (address instanceof InetSocketAddress) {
            // Without it, a socket with SO_REUSEADDR could bind the same port while this one listens,
            // and take or split its traffic.
            setIntOption(socket, WinsockNative.SOL_SOCKET, WinsockNative.SO_EXCLUSIVEADDRUSE, 1, "SO_EXCLUSIVEADDRUSE");
        }
        super.bind(socket, address);
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
        if (option != NativeSocketOption.REUSE_ADDRESS) {
            super.setOption(socket, option, value);
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * A positive SO_LINGER is refused: {@code closesocket} of a non-blocking socket that lingers fails
     * with {@code WSAEWOULDBLOCK} and leaves the socket open, so every close would have to be retried.
     */
    @Override
    public @Nullable String unsupported(NativeSocketOption option, int value) {
        if (option == NativeSocketOption.LINGER && value > 0) {
            return "closesocket of a non-blocking socket with a positive SO_LINGER fails with WSAEWOULDBLOCK; a linger of 0"
                    + " (a reset at close) is taken";
        }
        return super.unsupported(option, value);
    }

    @Override
    protected String absence(NativeSocketOption option) {
        return switch (option) {
            case REUSE_PORT -> "SO_REUSEPORT does not exist on Windows";
            case USER_TIMEOUT -> "Windows has no TCP_USER_TIMEOUT (its TCP_MAXRT bounds retransmissions only); a keep-alive finds a"
                    + " dead peer there";
            case NOT_SENT_LOW_WATERMARK -> "Windows has no TCP_NOTSENT_LOWAT";
            case FAST_OPEN -> "the winsock backend does not set TCP_FASTOPEN on listening sockets";
            case SEGMENT_SIZE, RECEIVE_COALESCED -> "the winsock backend neither sends segmented nor receives coalesced datagrams"
                    + " (Windows' UDP_SEND_MSG_SIZE and UDP_RECV_MAX_COALESCED_SIZE carry their segment size in WSASendMsg's and"
                    + " WSARecvMsg's control messages, which it does not call)";
            case TYPE_OF_SERVICE, IPV6_TRAFFIC_CLASS -> "Windows ignores " + option.nativeName()
                    + " set on a socket: its traffic classes are set by Quality of Service policy";
            default -> "Windows has no " + option.nativeName();
        };
    }

    @Override
    protected int bindCall(long socket, long address, int length) {
        return this.calls.bind(socket, address, length);
    }

    @Override
    protected int listenCall(long socket, int backlog) {
        return this.calls.listen(socket, backlog);
    }

    @Override
    protected long acceptCall(long listener) {
        return this.calls.accept(listener, 0, 0);
    }

    @Override
    protected int connectCall(long socket, long address, int length) {
        return this.calls.connect(socket, address, length);
    }

    @Override
    protected long recvCall(long socket, long buffer, int length) {
        return this.calls.recv(socket, buffer, length, 0);
    }

    @Override
    protected long sendCall(long socket, long buffer, int length) {
        return this.calls.send(socket, buffer, length, 0);
    }

    @Override
    protected long recvFromCall(long socket, long buffer, int length, long address, long addressLength) {
        return this.calls.recvfrom(socket, buffer, length, 0, address, addressLength);
    }

    @Override
    protected long sendToCall(long socket, long buffer, int length, long address, int addressLength) {
        return this.calls.sendto(socket, buffer, length, 0, address, addressLength);
    }

    @Override
    protected int setOptionCall(long socket, int level, int name, long value, int length) {
        return this.calls.setsockopt(socket, level, name, value, length);
    }

    @Override
    protected int getOptionCall(long socket, int level, int name, long value, long length) {
        return this.calls.getsockopt(socket, level, name, value, length);
    }

    @Override
    protected int shutdownCall(long socket, int how) {
        return this.calls.shutdown(socket, how);
    }

    @Override
    protected int closeCall(long socket) {
        return this.calls.closesocket(socket);
    }

    @Override
    protected int nameCall(long socket, boolean local, long address, long addressLength) {
        return local ? this.calls.getsockname(socket, address, addressLength)
                : this.calls.getpeername(socket, address, addressLength);
    }

    @Override
    protected long addressOf(ByteBuffer direct) {
        return this.calls.addressOf(direct);
    }
}
