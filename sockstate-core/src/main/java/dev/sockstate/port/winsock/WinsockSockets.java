package dev.sockstate.port.winsock;

import dev.sockstate.port.AbstractBsdSockets;
import dev.sockstate.port.DatagramBatch;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.OutgoingDatagrams;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.SocketAddressLayout;
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
 * <p>
 * Windows has no call that sends or receives many datagrams at once: a send batch leaves a datagram
 * a {@code WSASendMsg}, which carries a segmented datagram's size as a {@code UDP_SEND_MSG_SIZE} control
 * message (segmentation offload), and a coalesced receive is a {@code WSARecvMsg}, which reports the
 * segment size in a {@code UDP_COALESCED_INFO} one. Both options came with Windows 10 2004 (build
 * 19041): a socket of an older build is asked once whether it has them, and they are refused where it
 * has not.
 */
final class WinsockSockets extends AbstractBsdSockets {

    /** The most bytes a coalesced receive is handed ({@code UDP_RECV_MAX_COALESCED_SIZE}): its batch has room for 64 KiB. */
    private static final int MAX_COALESCED = 65_535;

    /** A {@code WSAMSG} on x64: the name and its length, the buffers and their count, the control {@code WSABUF}, the flags. */
    private static final int WSAMSG_SIZE = 56;
    private static final int MSG_NAMELEN = 8;
    private static final int MSG_BUFFERS = 16;
    private static final int MSG_BUFFER_COUNT = 24;
    private static final int MSG_CONTROL_LENGTH = 32;
    private static final int MSG_CONTROL = 40;
    private static final int MSG_FLAGS = 48;

    /** A {@code WSABUF} on x64: a {@code ULONG} length, then the pointer at 8. */
    private static final int WSABUF_SIZE = 16;

    /** A {@code WSACMSGHDR} on x64: a {@code SIZE_T} length, the level, the type; its data at 16. */
    private static final int CMSG_HEADER = 16;

    /** {@code WSA_CMSG_SPACE(sizeof(DWORD))}: one control message of a {@code DWORD}, aligned. */
    private static final int CMSG_DWORD_SPACE = 24;

    /** Room for the control messages a receive reads. */
    private static final int CONTROL_ROOM = 2 * CMSG_DWORD_SPACE;

    /** The {@code WSAMSG}, its {@code WSABUF}, its control data, then a {@code DWORD} for the bytes moved. */
    private static final int BUFFER_AT = WSAMSG_SIZE;
    private static final int CONTROL_AT = BUFFER_AT + WSABUF_SIZE;
    private static final int SEND_BYTES_AT = CONTROL_AT + CMSG_DWORD_SPACE;
    private static final int RECEIVE_BYTES_AT = CONTROL_AT + CONTROL_ROOM;

    /** {@code WSAID_WSARECVMSG}, {F689D7C8-6F1F-436B-8A53-E54FE351C322}, as its 16 bytes lie in memory. */
    private static final byte[] WSARECVMSG_GUID = {(byte) 0xc8, (byte) 0xd7, (byte) 0x89, (byte) 0xf6, 0x1f, 0x6f, 0x6b, 0x43,
            (byte) 0x8a, 0x53, (byte) 0xe5, 0x4f, (byte) 0xe3, 0x51, (byte) 0xc3, 0x22};

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
        options.put(NativeSocketOption.SEGMENT_SIZE, new OptionName(WinsockNative.IPPROTO_UDP, WinsockNative.UDP_SEND_MSG_SIZE));
        options.put(NativeSocketOption.RECEIVE_COALESCED, new OptionName(WinsockNative.IPPROTO_UDP, WinsockNative.UDP_RECV_MAX_COALESCED_SIZE));
        return options;
    }

    /** Why the build has no segmentation offload, {@code ""} when it has it; asked once. */
    private volatile @Nullable String segmentationAbsence;

    /** Why the build has no receive coalescing, {@code ""} when it has it; asked once. */
    private volatile @Nullable String coalescingAbsence;

    /** The address of {@code WSARecvMsg}, found with the first socket asked to coalesce or receiving coalesced; 0 before. */
    private volatile long recvMsg;

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
        if (option == NativeSocketOption.REUSE_ADDRESS) {
            return;
        }
        if (option == NativeSocketOption.SEGMENT_SIZE || option == NativeSocketOption.RECEIVE_COALESCED) {
            String why = unsupported(option, value);
            if (why != null) {
                throw new NativeIoException("setsockopt(" + option.nativeName() + ")", NativeError.NOT_SUPPORTED, WsaError.WSAENOPROTOOPT,
                        why);
            }
        }
        if (option == NativeSocketOption.RECEIVE_COALESCED && value != 0) {
            // Windows takes the most bytes of a coalesced message, not a switch; and only WSARecvMsg tells their segment size.
            findRecvMsg(socket);
            value = MAX_COALESCED;
        }
        super.setOption(socket, option, value);
    }

    /** {@inheritDoc} {@link NativeSocketOption#RECEIVE_COALESCED} reads 1 when on, as it is set. */
    @Override
    public int getOption(long socket, NativeSocketOption option) throws NativeIoException {
        int value = super.getOption(socket, option);
        return (option == NativeSocketOption.RECEIVE_COALESCED && value != 0) ? 1 : value;
    }

    /** Asks Winsock for {@code WSARecvMsg}'s address, once: it is the same for every socket of the provider. */
    private void findRecvMsg(long socket) throws NativeIoException {
        if (this.recvMsg != 0) {
            return;
        }
        try (Scratch local = scratch()) {
            NativeBuffer holder = local.address();
            ByteBuffer bytes = holder.buffer();
            bytes.put(0, WSARECVMSG_GUID);
            bytes.putLong(16, 0);
            if (this.calls.WSAIoctl(socket, WinsockNative.SIO_GET_EXTENSION_FUNCTION_POINTER, holder.address(), WSARECVMSG_GUID.length,
                    holder.address() + 16, Long.BYTES, holder.address() + 24, 0, 0) != 0) {
                throw lastException("WSAIoctl(SIO_GET_EXTENSION_FUNCTION_POINTER, WSARecvMsg)");
            }
            this.recvMsg = bytes.getLong(16);
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * {@link NativeSocketOption#SEGMENT_SIZE} and {@link NativeSocketOption#RECEIVE_COALESCED} are
     * {@code UDP_SEND_MSG_SIZE} and {@code UDP_RECV_MAX_COALESCED_SIZE}, which Windows 10 2004 (build 19041) and later
     * have: a UDP socket is asked for both once, as Microsoft's MsQuic asks, and where the build refuses they are
     * refused.
     * <p>
     * A positive SO_LINGER is refused: {@code closesocket} of a non-blocking socket that lingers fails
     * with {@code WSAEWOULDBLOCK} and leaves the socket open, so every close would have to be retried.
     */
    @Override
    public @Nullable String unsupported(NativeSocketOption option, int value) {
        if (option == NativeSocketOption.SEGMENT_SIZE || option == NativeSocketOption.RECEIVE_COALESCED) {
            String why = offloadAbsence(option == NativeSocketOption.SEGMENT_SIZE);
            return why.isEmpty() ? null : why;
        }
        if (option == NativeSocketOption.LINGER && value > 0) {
            return "closesocket of a non-blocking socket with a positive SO_LINGER fails with WSAEWOULDBLOCK; a linger of 0"
                    + " (a reset at close) is taken";
        }
        return super.unsupported(option, value);
    }

    private String offloadAbsence(boolean segmentation) {
        String why = segmentation ? this.segmentationAbsence : this.coalescingAbsence;
        if (why != null) {
            return why;
        }
        String label = segmentation ? "UDP_SEND_MSG_SIZE" : "UDP_RECV_MAX_COALESCED_SIZE";
        long probe;
        try {
            probe = openSocket(WinsockNative.AF_INET, Protocol.UDP);
        }
        catch (NativeIoException ex) {
            // Not kept: a shortage of sockets passes, and the next socket asks again.
            return "no UDP socket could be opened to ask whether this Windows build has " + label + " (" + ex.getMessage() + ")";
        }
        try (Scratch local = scratch()) {
            NativeBuffer holder = local.option();
            holder.buffer().putInt(0, 0).putInt(4, 4);
            int name = segmentation ? WinsockNative.UDP_SEND_MSG_SIZE : WinsockNative.UDP_RECV_MAX_COALESCED_SIZE;
            if (this.calls.getsockopt(probe, WinsockNative.IPPROTO_UDP, name, holder.address(), holder.address() + 4) == 0) {
                why = "";
            }
            else {
                int code = lastError();
                String failure = exception("getsockopt(" + label + ")", code).getMessage();
                if (code != WsaError.WSAENOPROTOOPT && code != WsaError.WSAEINVAL) {
                    // Not an answer about the build: asked again next time.
                    return "could not ask whether this Windows build has " + label + " (" + failure + ")";
                }
                why = "this Windows build has no " + label + " (Windows 10 version 2004, build 19041, and later have it: " + failure + ")";
            }
        }
        finally {
            this.calls.closesocket(probe);
        }
        if (segmentation) {
            this.segmentationAbsence = why;
        }
        else {
            this.coalescingAbsence = why;
        }
        return why;
    }

    @Override
    protected String absence(NativeSocketOption option) {
        return switch (option) {
            case REUSE_PORT -> "SO_REUSEPORT does not exist on Windows";
            case USER_TIMEOUT -> "Windows has no TCP_USER_TIMEOUT (its TCP_MAXRT bounds retransmissions only); a keep-alive finds a"
                    + " dead peer there";
            case NOT_SENT_LOW_WATERMARK -> "Windows has no TCP_NOTSENT_LOWAT";
            case FAST_OPEN -> "the winsock backend does not set TCP_FASTOPEN on listening sockets";
            case TYPE_OF_SERVICE, IPV6_TRAFFIC_CLASS -> "Windows ignores " + option.nativeName()
                    + " set on a socket: its traffic classes are set by Quality of Service policy";
            default -> "Windows has no " + option.nativeName();
        };
    }

    /**
     * {@inheritDoc}
     * <p>
     * A datagram a {@code WSASendMsg}: the batch holds one {@code WSAMSG}, its {@code WSABUF} and a
     * {@code UDP_SEND_MSG_SIZE} control message, pointed at each other once here and filled for each datagram.
     */
    @Override
    public OutgoingDatagrams outgoingDatagrams(int datagrams) {
        OutgoingDatagrams batch = fullOutgoingDatagrams(datagrams);
        NativeBuffer vector = allocate(SEND_BYTES_AT + Long.BYTES);
        ByteBuffer layout = vector.buffer();
        layout.putLong(MSG_BUFFERS, vector.address() + BUFFER_AT);
        layout.putInt(MSG_BUFFER_COUNT, 1);
        layout.putLong(CONTROL_AT, CMSG_HEADER + Integer.BYTES);
        layout.putInt(CONTROL_AT + 8, WinsockNative.IPPROTO_UDP);
        layout.putInt(CONTROL_AT + 12, WinsockNative.UDP_SEND_MSG_SIZE);
        vector(batch, vector);
        return batch;
    }

    @Override
    public int sendBatch(long socket, OutgoingDatagrams batch, int from) throws NativeIoException {
        NativeBuffer vector = vector(batch);
        if (vector == null) {
            throw new IllegalArgumentException("The send batch was not made by the winsock backend's sockets");
        }
        int size = batch.size();
        if (from < 0 || from >= size) {
            throw new IllegalArgumentException("No datagram " + from + " among the " + size + " of the batch");
        }
        ByteBuffer layout = vector.buffer();
        long message = vector.address();
        for (int i = from; i < size; i++) {
            layout.putLong(0, targetMemory(batch, i).address());
            layout.putInt(MSG_NAMELEN, encodeTarget(batch, i));
            layout.putInt(BUFFER_AT, batch.length(i));
            layout.putLong(BUFFER_AT + 8, datagramBase(batch, i));
            int segmentSize = batch.segmentSize(i);
            if (segmentSize > 0) {
                layout.putInt(CONTROL_AT + CMSG_HEADER, segmentSize);
                layout.putInt(MSG_CONTROL_LENGTH, CMSG_DWORD_SPACE);
                layout.putLong(MSG_CONTROL, message + CONTROL_AT);
            }
            else {
                layout.putInt(MSG_CONTROL_LENGTH, 0);
                layout.putLong(MSG_CONTROL, 0);
            }
            layout.putInt(MSG_FLAGS, 0);
            int result;
            int code = 0;
            do {
                result = this.calls.WSASendMsg(socket, message, 0, message + SEND_BYTES_AT);
            }
            while (result != 0 && isInterrupted(code = lastError()));
            if (result != 0) {
                if (i > from) {
                    return i - from;
                }
                if (isWouldBlock(code)) {
                    return WOULD_BLOCK;
                }
                throw exception("WSASendMsg", code);
            }
        }
        return size - from;
    }

    /**
     * {@inheritDoc}
     * <p>
     * A batch for a socket that coalesces holds a {@code WSAMSG} for {@code WSARecvMsg} (its address asked of
     * Winsock on the first receive, if no socket was set to coalesce before), whose control data tells a
     * coalesced message's segment size; any other receives a datagram a {@code recvfrom}.
     */
    @Override
    public DatagramBatch datagramBatch(int datagrams, int datagramSize, boolean coalesced) {
        if (!coalesced) {
            return fullDatagramBatch(1, datagramSize);
        }
        DatagramBatch batch = fullDatagramBatch(1, datagramSize);
        NativeBuffer vector = allocate(RECEIVE_BYTES_AT + Long.BYTES);
        ByteBuffer layout = vector.buffer();
        layout.putLong(0, senderMemory(batch, 0).address());
        layout.putLong(MSG_BUFFERS, vector.address() + BUFFER_AT);
        layout.putInt(MSG_BUFFER_COUNT, 1);
        layout.putInt(BUFFER_AT, datagramSize);
        layout.putLong(BUFFER_AT + 8, datagramSlot(batch, 0).address());
        vector(batch, vector);
        return batch;
    }

    @Override
    public int receiveBatch(long socket, DatagramBatch batch) throws NativeIoException {
        NativeBuffer vector = vector(batch);
        if (vector == null) {
            return receiveAlone(socket, batch);
        }
        filled(batch, 0);
        findRecvMsg(socket);
        ByteBuffer layout = vector.buffer();
        long message = vector.address();
        int result;
        int code = 0;
        do {
            layout.putInt(MSG_NAMELEN, SocketAddressLayout.STORAGE_SIZE);
            layout.putInt(MSG_CONTROL_LENGTH, CONTROL_ROOM);
            layout.putLong(MSG_CONTROL, message + CONTROL_AT);
            layout.putInt(MSG_FLAGS, 0);
            layout.putInt(RECEIVE_BYTES_AT, 0);
            // No control message from the last receive is read again if this one writes none.
            layout.putLong(CONTROL_AT, 0);
            result = this.calls.WSARecvMsg(this.recvMsg, socket, message, message + RECEIVE_BYTES_AT);
        }
        while (result != 0 && isInterrupted(code = lastError()));
        int length = layout.getInt(RECEIVE_BYTES_AT);
        if (result != 0) {
            if (isWouldBlock(code)) {
                return WOULD_BLOCK;
            }
            if (!isTruncated(code)) {
                throw exception("WSARecvMsg", code);
            }
            length = batch.datagramSize();
        }
        received(batch, 0, Math.min(length, batch.datagramSize()));
        senderMemory(batch, 0).buffer().putInt(SocketAddressLayout.LENGTH_OFFSET, layout.getInt(MSG_NAMELEN));
        decodeSender(batch, 0);
        int controls = Math.min(layout.getInt(MSG_CONTROL_LENGTH), CONTROL_ROOM);
        for (int offset = 0; offset + CMSG_HEADER <= controls; ) {
            long messageLength = layout.getLong(CONTROL_AT + offset);
            if (messageLength < CMSG_HEADER || offset + messageLength > controls) {
                break;
            }
            if (layout.getInt(CONTROL_AT + offset + 8) == WinsockNative.IPPROTO_UDP
                    && layout.getInt(CONTROL_AT + offset + 12) == WinsockNative.UDP_COALESCED_INFO
                    && messageLength >= CMSG_HEADER + Integer.BYTES) {
                segmentSize(batch, 0, layout.getInt(CONTROL_AT + offset + CMSG_HEADER));
            }
            offset += (int) ((messageLength + 7) & ~7L);
        }
        filled(batch, 1);
        return 1;
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
