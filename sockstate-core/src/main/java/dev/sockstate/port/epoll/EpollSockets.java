package dev.sockstate.port.epoll;

import dev.sockstate.port.AbstractBsdSockets;
import dev.sockstate.port.DatagramBatch;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.OutgoingDatagrams;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.SocketAddressLayout;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Non-blocking Linux sockets through libc: descriptors an {@link EpollPort} registers. Each call is
 * the libc call on the {@link EpollCalls} the backend gave, with the handle narrowed to a descriptor;
 * a send never raises {@code SIGPIPE} ({@code MSG_NOSIGNAL}). A batch of datagrams is received with
 * one {@code recvmmsg}, and sent with one {@code sendmmsg}.
 */
final class EpollSockets extends AbstractBsdSockets {

    // struct mmsghdr on 64-bit Linux: a struct msghdr of 56 bytes, then msg_len.
    private static final int MMSGHDR_SIZE = 64;

    private static final int MSG_NAME = 0;

    private static final int MSG_NAMELEN = 8;

    private static final int MSG_IOV = 16;

    private static final int MSG_IOVLEN = 24;

    private static final int MSG_CONTROL = 32;

    private static final int MSG_CONTROLLEN = 40;

    private static final int MSG_FLAGS = 48;

    private static final int MSG_LEN = 56;

    // struct iovec: iov_base, iov_len.
    private static final int IOVEC_SIZE = 16;

    // struct cmsghdr: cmsg_len (size_t), cmsg_level, cmsg_type, then the data, 8-byte aligned.
    private static final int CMSG_HEADER = 16;

    /**
     * Room for a datagram's control messages: the overflow count's and the coalesced segment size's take 24
     * bytes each; one the room cannot hold is cut off.
     */
    private static final int CONTROL_ROOM = 64;

    /** A segment size's control message ({@code UDP_SEGMENT}, a u16), its length rounded up to 8: CMSG_SPACE(2). */
    private static final int SEGMENT_CONTROL = 24;

    private static final Constants CONSTANTS = new Constants(LinuxAbi.AF_INET, LinuxAbi.AF_INET6, LinuxAbi.AF_UNIX,
            LinuxAbi.SOL_SOCKET, LinuxAbi.SO_ERROR, LinuxAbi.SO_PEERCRED, options(), Integer.BYTES, LinuxAbi.ENOPROTOOPT, "accept4",
            "close");

    private final EpollCalls calls;

    private static Map<NativeSocketOption, OptionName> options() {
        Map<NativeSocketOption, OptionName> options = new EnumMap<>(NativeSocketOption.class);
        options.put(NativeSocketOption.REUSE_ADDRESS, new OptionName(LinuxAbi.SOL_SOCKET, LinuxAbi.SO_REUSEADDR));
        options.put(NativeSocketOption.REUSE_PORT, new OptionName(LinuxAbi.SOL_SOCKET, LinuxAbi.SO_REUSEPORT));
        options.put(NativeSocketOption.TCP_NODELAY, new OptionName(LinuxAbi.IPPROTO_TCP, LinuxAbi.TCP_NODELAY));
        options.put(NativeSocketOption.RECEIVE_BUFFER, new OptionName(LinuxAbi.SOL_SOCKET, LinuxAbi.SO_RCVBUF));
        options.put(NativeSocketOption.SEND_BUFFER, new OptionName(LinuxAbi.SOL_SOCKET, LinuxAbi.SO_SNDBUF));
        options.put(NativeSocketOption.KEEP_ALIVE, new OptionName(LinuxAbi.SOL_SOCKET, LinuxAbi.SO_KEEPALIVE));
        options.put(NativeSocketOption.IPV6_ONLY, new OptionName(LinuxAbi.IPPROTO_IPV6, LinuxAbi.IPV6_V6ONLY));
        options.put(NativeSocketOption.KEEP_ALIVE_IDLE, new OptionName(LinuxAbi.IPPROTO_TCP, LinuxAbi.TCP_KEEPIDLE));
        options.put(NativeSocketOption.KEEP_ALIVE_INTERVAL, new OptionName(LinuxAbi.IPPROTO_TCP, LinuxAbi.TCP_KEEPINTVL));
        options.put(NativeSocketOption.KEEP_ALIVE_COUNT, new OptionName(LinuxAbi.IPPROTO_TCP, LinuxAbi.TCP_KEEPCNT));
        options.put(NativeSocketOption.USER_TIMEOUT, new OptionName(LinuxAbi.IPPROTO_TCP, LinuxAbi.TCP_USER_TIMEOUT));
        options.put(NativeSocketOption.LINGER, new OptionName(LinuxAbi.SOL_SOCKET, LinuxAbi.SO_LINGER));
        options.put(NativeSocketOption.NOT_SENT_LOW_WATERMARK, new OptionName(LinuxAbi.IPPROTO_TCP, LinuxAbi.TCP_NOTSENT_LOWAT));
        options.put(NativeSocketOption.FAST_OPEN, new OptionName(LinuxAbi.IPPROTO_TCP, LinuxAbi.TCP_FASTOPEN));
        options.put(NativeSocketOption.TYPE_OF_SERVICE, new OptionName(LinuxAbi.IPPROTO_IP, LinuxAbi.IP_TOS));
        options.put(NativeSocketOption.IPV6_TRAFFIC_CLASS, new OptionName(LinuxAbi.IPPROTO_IPV6, LinuxAbi.IPV6_TCLASS));
        options.put(NativeSocketOption.RECEIVE_QUEUE_OVERFLOWS, new OptionName(LinuxAbi.SOL_SOCKET, LinuxAbi.SO_RXQ_OVFL));
        options.put(NativeSocketOption.SEGMENT_SIZE, new OptionName(LinuxAbi.SOL_UDP, LinuxAbi.UDP_SEGMENT));
        options.put(NativeSocketOption.RECEIVE_COALESCED, new OptionName(LinuxAbi.SOL_UDP, LinuxAbi.UDP_GRO));
        return options;
    }

    /** @param calls the binding the sockets call libc through */
    EpollSockets(EpollCalls calls) {
        super(CONSTANTS);
        this.calls = calls;
    }

    /** @return the binding the sockets call libc through, which their port shares */
    EpollCalls calls() {
        return this.calls;
    }

    @Override
    protected int lastError() {
        return this.calls.errno();
    }

    @Override
    protected boolean isWouldBlock(int code) {
        return code == Errno.EAGAIN;
    }

    @Override
    protected boolean isInterrupted(int code) {
        return code == Errno.EINTR;
    }

    @Override
    protected boolean isConnectPending(int code) {
        // (An interrupted connect goes on in the background on Linux.)
        return code == Errno.EINPROGRESS || code == Errno.EINTR;
    }

    @Override
    protected NativeIoException exception(String call, int code) {
        return Errno.exception(this.calls, call, code);
    }

    @Override
    protected long openSocket(int domain, Protocol protocol) throws NativeIoException {
        int type = (protocol == Protocol.TCP) ? LinuxAbi.SOCK_STREAM : LinuxAbi.SOCK_DGRAM;
        int fd = this.calls.socket(domain, type | LinuxAbi.SOCK_NONBLOCK | LinuxAbi.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw lastException("socket");
        }
        if (protocol == Protocol.UDP && domain != LinuxAbi.AF_UNIX) {
            // Linux hands a wildcard-bound socket the datagrams of every group any socket of the host joined on
            // its port (IP_MULTICAST_ALL, on by default): a socket receives those of its own groups only, as the
            // JDK's do. (A kernel without the IPv6 option, before 4.20, refuses it: nothing to turn off there.)
            multicastAllOff(fd, LinuxAbi.IPPROTO_IP, LinuxAbi.IP_MULTICAST_ALL);
            if (domain == LinuxAbi.AF_INET6) {
                multicastAllOff(fd, LinuxAbi.IPPROTO_IPV6, LinuxAbi.IPV6_MULTICAST_ALL);
            }
        }
        return fd;
    }

    @Override
    protected int bindCall(long socket, long address, int length) {
        return this.calls.bind(fd(socket), address, length);
    }

    @Override
    protected int listenCall(long socket, int backlog) {
        return this.calls.listen(fd(socket), backlog);
    }

    @Override
    protected long acceptCall(long listener) {
        return this.calls.accept4(fd(listener), 0, 0, LinuxAbi.SOCK_NONBLOCK | LinuxAbi.SOCK_CLOEXEC);
    }

    @Override
    protected int connectCall(long socket, long address, int length) {
        return this.calls.connect(fd(socket), address, length);
    }

    @Override
    protected long recvCall(long socket, long buffer, int length) {
        return this.calls.recv(fd(socket), buffer, length, 0);
    }

    @Override
    protected long sendCall(long socket, long buffer, int length) {
        return this.calls.send(fd(socket), buffer, length, LinuxAbi.MSG_NOSIGNAL);
    }

    @Override
    protected long recvFromCall(long socket, long buffer, int length, long address, long addressLength) {
        return this.calls.recvfrom(fd(socket), buffer, length, 0, address, addressLength);
    }

    @Override
    protected long sendToCall(long socket, long buffer, int length, long address, int addressLength) {
        return this.calls.sendto(fd(socket), buffer, length, LinuxAbi.MSG_NOSIGNAL, address, addressLength);
    }

    /**
     * {@inheritDoc}
     * <p>
     * The batch holds, beside its datagrams and senders, one {@code struct mmsghdr} a datagram, its
     * {@code iovec} and room for its control messages, pointed at each other once here: {@code recvmmsg}
     * reads a coalesced datagram's segment size with the others, whatever {@code coalesced} says.
     */
    @Override
    public DatagramBatch datagramBatch(int datagrams, int datagramSize, boolean coalesced) {
        DatagramBatch batch = fullDatagramBatch(datagrams, datagramSize);
        int capacity = batch.capacity();
        NativeBuffer vector = allocate(capacity * (MMSGHDR_SIZE + IOVEC_SIZE + CONTROL_ROOM));
        ByteBuffer layout = vector.buffer();
        int iovecs = capacity * MMSGHDR_SIZE;
        int controls = iovecs + capacity * IOVEC_SIZE;
        for (int i = 0; i < capacity; i++) {
            int header = i * MMSGHDR_SIZE;
            int iovec = iovecs + i * IOVEC_SIZE;
            layout.putLong(header + MSG_NAME, senderMemory(batch, i).address());
            layout.putLong(header + MSG_IOV, vector.address() + iovec);
            layout.putLong(header + MSG_IOVLEN, 1);
            layout.putLong(header + MSG_CONTROL, vector.address() + controls + i * CONTROL_ROOM);
            layout.putLong(iovec, datagramSlot(batch, i).address());
            layout.putLong(iovec + 8, datagramSize);
        }
        vector(batch, vector);
        return batch;
    }

    private void multicastAllOff(int fd, int level, int name) {
        try (Scratch local = scratch()) {
            NativeBuffer value = local.option();
            value.buffer().putInt(0, 0);
            this.calls.setsockopt(fd, level, name, value.address(), 4);
        }
    }

    @Override
    public @Nullable String multicastUnsupported() {
        return null;
    }

    @Override
    public void joinGroup(long socket, InetAddress group, int interfaceIndex, @Nullable InetAddress source) throws NativeIoException {
        membership(socket, group, interfaceIndex, source, true);
    }

    @Override
    public void leaveGroup(long socket, InetAddress group, int interfaceIndex, @Nullable InetAddress source) throws NativeIoException {
        membership(socket, group, interfaceIndex, source, false);
    }

    /**
     * Joins or leaves with the protocol-independent calls ({@code MCAST_JOIN_GROUP} and the others): a
     * {@code struct group_req} (the interface, then the group as a {@code sockaddr_storage} at 8) or a
     * {@code struct group_source_req} (the source after it, at 136), at the level of the group's family.
     */
    private void membership(long socket, InetAddress group, int interfaceIndex, @Nullable InetAddress source, boolean join)
            throws NativeIoException {
        boolean ipv4 = group instanceof Inet4Address;
        int name = (source == null) ? (join ? LinuxAbi.MCAST_JOIN_GROUP : LinuxAbi.MCAST_LEAVE_GROUP)
                : (join ? LinuxAbi.MCAST_JOIN_SOURCE_GROUP : LinuxAbi.MCAST_LEAVE_SOURCE_GROUP);
        int storage = SocketAddressLayout.STORAGE_SIZE;
        NativeBuffer request = allocate(8 + 2 * storage);
        ByteBuffer bytes = request.buffer();
        bytes.putInt(0, interfaceIndex);
        encodeAddress(new InetSocketAddress(group, 0), bytes.slice(8, storage).order(bytes.order()));
        if (source != null) {
            encodeAddress(new InetSocketAddress(source, 0), bytes.slice(8 + storage, storage).order(bytes.order()));
        }
        int length = (source == null) ? 8 + storage : 8 + 2 * storage;
        int result = setOptionCall(socket, ipv4 ? LinuxAbi.IPPROTO_IP : LinuxAbi.IPPROTO_IPV6, name, request.address(), length);
        java.lang.ref.Reference.reachabilityFence(request);
        if (result != 0) {
            String what = (join ? "MCAST_JOIN" : "MCAST_LEAVE") + ((source != null) ? "_SOURCE_GROUP " : "_GROUP ") + group.getHostAddress()
                    + ((source != null) ? " from " + source.getHostAddress() : "") + " on interface " + interfaceIndex;
            throw lastException("setsockopt(" + what + ")");
        }
    }

    @Override
    public void sendMulticast(long socket, StandardProtocolFamily family, int interfaceIndex, int hops, boolean loopback)
            throws NativeIoException {
        // An IPv6 socket is dual-stack: it sends to IPv4 groups too, by the IPv4 options, which Linux takes on it.
        setIntOption(socket, LinuxAbi.IPPROTO_IP, LinuxAbi.IP_MULTICAST_TTL, hops, "IP_MULTICAST_TTL");
        setIntOption(socket, LinuxAbi.IPPROTO_IP, LinuxAbi.IP_MULTICAST_LOOP, loopback ? 1 : 0, "IP_MULTICAST_LOOP");
        if (interfaceIndex > 0) {
            // A struct ip_mreqn: no group, no local address, the interface's index.
            NativeBuffer request = allocate(12);
            request.buffer().putInt(8, interfaceIndex);
            int result = setOptionCall(socket, LinuxAbi.IPPROTO_IP, LinuxAbi.IP_MULTICAST_IF, request.address(), 12);
            java.lang.ref.Reference.reachabilityFence(request);
            if (result != 0) {
                throw lastException("setsockopt(IP_MULTICAST_IF " + interfaceIndex + ")");
            }
        }
        if (family == StandardProtocolFamily.INET6) {
            setIntOption(socket, LinuxAbi.IPPROTO_IPV6, LinuxAbi.IPV6_MULTICAST_HOPS, hops, "IPV6_MULTICAST_HOPS");
            setIntOption(socket, LinuxAbi.IPPROTO_IPV6, LinuxAbi.IPV6_MULTICAST_LOOP, loopback ? 1 : 0, "IPV6_MULTICAST_LOOP");
            if (interfaceIndex > 0) {
                setIntOption(socket, LinuxAbi.IPPROTO_IPV6, LinuxAbi.IPV6_MULTICAST_IF, interfaceIndex, "IPV6_MULTICAST_IF");
            }
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * Beside its datagrams and targets, the batch holds one {@code struct mmsghdr}, one {@code iovec} and
     * room for one control message a datagram, pointed at each other once here; each send writes their
     * targets and lengths, and a segmented datagram's segment size ({@code UDP_SEGMENT}, a u16).
     */
    @Override
    public OutgoingDatagrams outgoingDatagrams(int datagrams) {
        OutgoingDatagrams batch = fullOutgoingDatagrams(datagrams);
        int capacity = batch.capacity();
        NativeBuffer vector = allocate(capacity * (MMSGHDR_SIZE + IOVEC_SIZE + SEGMENT_CONTROL));
        ByteBuffer layout = vector.buffer();
        int iovecs = capacity * MMSGHDR_SIZE;
        int controls = iovecs + capacity * IOVEC_SIZE;
        for (int i = 0; i < capacity; i++) {
            int header = i * MMSGHDR_SIZE;
            layout.putLong(header + MSG_NAME, targetMemory(batch, i).address());
            layout.putLong(header + MSG_IOV, vector.address() + iovecs + i * IOVEC_SIZE);
            layout.putLong(header + MSG_IOVLEN, 1);
            int control = controls + i * SEGMENT_CONTROL;
            layout.putLong(control, CMSG_HEADER + Short.BYTES);
            layout.putInt(control + 8, LinuxAbi.SOL_UDP);
            layout.putInt(control + 12, LinuxAbi.UDP_SEGMENT);
        }
        vector(batch, vector);
        return batch;
    }

    @Override
    public boolean sendsManyInOneCall() {
        return true;
    }

    @Override
    public int sendBatch(long socket, OutgoingDatagrams batch, int from) throws NativeIoException {
        NativeBuffer vector = vector(batch);
        if (vector == null) {
            throw new IllegalArgumentException("The send batch was not made by the epoll backend's sockets");
        }
        int size = batch.size();
        if (from < 0 || from >= size) {
            throw new IllegalArgumentException("No datagram " + from + " among the " + size + " of the batch");
        }
        ByteBuffer layout = vector.buffer();
        int iovecs = batch.capacity() * MMSGHDR_SIZE;
        int controls = iovecs + batch.capacity() * IOVEC_SIZE;
        for (int i = from; i < size; i++) {
            int header = i * MMSGHDR_SIZE;
            layout.putInt(header + MSG_NAMELEN, encodeTarget(batch, i));
            layout.putLong(iovecs + i * IOVEC_SIZE, datagramBase(batch, i));
            layout.putLong(iovecs + i * IOVEC_SIZE + 8, batch.length(i));
            int segmentSize = batch.segmentSize(i);
            if (segmentSize > 0) {
                int control = controls + i * SEGMENT_CONTROL;
                layout.putShort(control + CMSG_HEADER, (short) segmentSize);
                layout.putLong(header + MSG_CONTROL, vector.address() + control);
                layout.putLong(header + MSG_CONTROLLEN, SEGMENT_CONTROL);
            }
            else {
                layout.putLong(header + MSG_CONTROL, 0);
                layout.putLong(header + MSG_CONTROLLEN, 0);
            }
        }
        int sent;
        int code = 0;
        do {
            sent = this.calls.sendmmsg(fd(socket), vector.address() + (long) from * MMSGHDR_SIZE, size - from, LinuxAbi.MSG_NOSIGNAL);
        }
        while (sent < 0 && isInterrupted(code = lastError()));
        if (sent >= 0) {
            return sent;
        }
        if (isWouldBlock(code)) {
            return WOULD_BLOCK;
        }
        throw exception("sendmmsg", code);
    }

    @Override
    public int receiveBatch(long socket, DatagramBatch batch) throws NativeIoException {
        NativeBuffer vector = vector(batch);
        if (vector == null) {
            throw new IllegalArgumentException("The datagram batch was not made by the epoll backend's sockets");
        }
        filled(batch, 0);
        int capacity = batch.capacity();
        ByteBuffer layout = vector.buffer();
        for (int i = 0; i < capacity; i++) {
            int header = i * MMSGHDR_SIZE;
            layout.putInt(header + MSG_NAMELEN, SocketAddressLayout.STORAGE_SIZE);
            layout.putLong(header + MSG_CONTROLLEN, CONTROL_ROOM);
            layout.putInt(header + MSG_FLAGS, 0);
        }
        int received;
        int code = 0;
        do {
            received = this.calls.recvmmsg(fd(socket), vector.address(), capacity, 0, 0);
        }
        while (received < 0 && isInterrupted(code = lastError()));
        if (received < 0) {
            if (isWouldBlock(code)) {
                return WOULD_BLOCK;
            }
            throw exception("recvmmsg", code);
        }
        int controls = capacity * (MMSGHDR_SIZE + IOVEC_SIZE);
        long overflows = -1;
        for (int i = 0; i < received; i++) {
            int header = i * MMSGHDR_SIZE;
            received(batch, i, Math.min(layout.getInt(header + MSG_LEN), batch.datagramSize()));
            int nameLength = layout.getInt(header + MSG_NAMELEN);
            ByteBuffer name = senderMemory(batch, i).buffer();
            if (nameLength < 2) {
                // An unnamed Unix sender: the system wrote no address at all.
                name.putShort(0, (short) LinuxAbi.AF_UNIX);
            }
            name.putInt(SocketAddressLayout.LENGTH_OFFSET, nameLength);
            decodeSender(batch, i);
            overflows = Math.max(overflows, controls(batch, i, layout, controls + i * CONTROL_ROOM, layout.getLong(header + MSG_CONTROLLEN)));
        }
        if (overflows >= 0) {
            overflows(batch, overflows);
        }
        filled(batch, received);
        return received;
    }

    /**
     * Reads one datagram's control messages: a coalesced datagram's segment size (UDP_GRO) into the batch.
     * @return the SO_RXQ_OVFL count among them, -1 when they have none
     */
    private static long controls(DatagramBatch batch, int index, ByteBuffer layout, int control, long length) {
        long found = -1;
        int offset = 0;
        while (offset + CMSG_HEADER <= length) {
            long messageLength = layout.getLong(control + offset);
            if (messageLength < CMSG_HEADER || offset + messageLength > length) {
                break;
            }
            if (layout.getInt(control + offset + 8) == LinuxAbi.SOL_SOCKET && layout.getInt(control + offset + 12) == LinuxAbi.SO_RXQ_OVFL
                    && messageLength >= CMSG_HEADER + Integer.BYTES) {
                found = Integer.toUnsignedLong(layout.getInt(control + offset + CMSG_HEADER));
            }
            else if (layout.getInt(control + offset + 8) == LinuxAbi.SOL_UDP && layout.getInt(control + offset + 12) == LinuxAbi.UDP_GRO
                    && messageLength >= CMSG_HEADER + Integer.BYTES) {
                segmentSize(batch, index, layout.getInt(control + offset + CMSG_HEADER));
            }
            offset += (int) ((messageLength + 7) & ~7L);
        }
        return found;
    }

    @Override
    protected int setOptionCall(long socket, int level, int name, long value, int length) {
        return this.calls.setsockopt(fd(socket), level, name, value, length);
    }

    @Override
    protected int getOptionCall(long socket, int level, int name, long value, long length) {
        return this.calls.getsockopt(fd(socket), level, name, value, length);
    }

    @Override
    protected int shutdownCall(long socket, int how) {
        return this.calls.shutdown(fd(socket), how);
    }

    @Override
    protected int closeCall(long socket) {
        return this.calls.close(fd(socket));
    }

    @Override
    protected int nameCall(long socket, boolean local, long address, long addressLength) {
        return local ? this.calls.getsockname(fd(socket), address, addressLength)
                : this.calls.getpeername(fd(socket), address, addressLength);
    }

    /** @return the handle as a descriptor @throws IllegalArgumentException when it is none */
    private static int fd(long socket) {
        int fd = (int) socket;
        if (fd != socket || fd < 0) {
            throw new IllegalArgumentException("Socket handle " + socket + " is not a file descriptor");
        }
        return fd;
    }

    @Override
    protected long addressOf(ByteBuffer direct) {
        return this.calls.addressOf(direct);
    }
}
