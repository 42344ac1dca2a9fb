package dev.sockstate.port;

import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the BSD-style socket calls of the native backends have in common, written once: the buffer
 * handling around {@code recv}, {@code send}, {@code recvfrom} and {@code sendto}, the addresses
 * passed and read back, the option table, and how a failure becomes a result (would-block, a
 * connect under way) or a {@link NativeIoException}. A backend gives its system's numbers
 * ({@link Constants}) and, for each call, the one line that makes it on its binding, with a handle
 * it may narrow (a descriptor is an {@code int}, a {@code SOCKET} a {@code long}), and says what
 * its error codes mean.
 */
public abstract class AbstractBsdSockets extends AbstractNativeSockets {

    /** What a call returning a handle returns on failure: -1 ({@code INVALID_SOCKET} is ~0 too). */
    protected static final long FAILED = -1L;

    /** {@code IPPROTO_IP}, the level of IPv4's options, the same on every system. */
    protected static final int IPPROTO_IP = 0;

    /** {@code IPPROTO_TCP}, the IANA protocol number, the same on every system. */
    protected static final int IPPROTO_TCP = 6;

    /** {@code IPPROTO_IPV6}, the IANA protocol number, the same on every system. */
    protected static final int IPPROTO_IPV6 = 41;

    /** {@code TCP_NODELAY}, 1 on Linux, Windows and the BSDs. */
    protected static final int TCP_NODELAY = 1;

    /** {@code sizeof(struct ucred)}: pid, uid and gid, an {@code int} each. */
    private static final int UCRED_SIZE = 12;

    /** {@code SHUT_RD}/{@code SD_RECEIVE}. */
    private static final int SHUT_RD = 0;

    /** {@code SHUT_WR}/{@code SD_SEND}. */
    private static final int SHUT_WR = 1;

    /** {@code SHUT_RDWR}/{@code SD_BOTH}. */
    private static final int SHUT_RDWR = 2;

    private final Constants constants;

    private final SocketAddressLayout layout;

    /** @param constants the system's numbers for the calls */
    protected AbstractBsdSockets(Constants constants) {
        this.constants = constants;
        this.layout = new SocketAddressLayout(constants.afInet(), constants.afInet6(), constants.afUnix());
    }

    /**
     * The numbers a system gives the BSD socket API where they differ between systems.
     * @param afInet {@code AF_INET}
     * @param afInet6 {@code AF_INET6}
     * @param afUnix {@code AF_UNIX}
     * @param solSocket {@code SOL_SOCKET}
     * @param soError {@code SO_ERROR}
     * @param soPeerCred {@code SO_PEERCRED}, filling a {@code struct ucred {int pid; int uid; int gid;}}, or
     * {@link #NO_OPTION} where the system has none
     * @param options the level and name of each option the system has; one it has not is missing, and refused
     * @param lingerFieldBytes the size of each of {@code struct linger}'s two fields: 4 ({@code int}) or 2
     * ({@code u_short}, Windows')
     * @param noSuchOption the error code of an option the system has not ({@code ENOPROTOOPT})
     * @param acceptName the name of the call that accepts a connection, for its exception
     * @param closeName the name of the call that closes a socket, for its exception
     */
    protected record Constants(int afInet, int afInet6, int afUnix, int solSocket, int soError, int soPeerCred,
            Map<NativeSocketOption, OptionName> options, int lingerFieldBytes, int noSuchOption, String acceptName, String closeName) {

        /** An option the system does not have. */
        public static final int NO_OPTION = -1;

        /** Public, so that a subclass in another package can make its own; the options are copied. */
        public Constants {
            options = Collections.unmodifiableMap(new EnumMap<>(options));
        }
    }

    /**
     * Where an option is: its level and name for {@code setsockopt}.
     * @param level {@code SOL_SOCKET}, {@code IPPROTO_TCP}, {@code IPPROTO_IP} or {@code IPPROTO_IPV6}
     * @param name the option's number at that level
     */
    protected record OptionName(int level, int name) {

        /** Public, so that a subclass in another package can make its own. */
        public OptionName {
        }
    }

    /** @return this thread's error code of its last failed call */
    protected abstract int lastError();

    /** @param code an error code @return whether it says the call would block */
    protected abstract boolean isWouldBlock(int code);

    /** @param code the error code of a failed connect @return whether it says the connect is under way */
    protected abstract boolean isConnectPending(int code);

    /**
     * @param code an error code
     * @return whether it says a signal interrupted the call before it did anything ({@code EINTR}):
     * an accept, a send or a receive is made again
     */
    protected abstract boolean isInterrupted(int code);

    /**
     * @param code the error code of a failed {@code recvfrom}
     * @return whether it says the datagram was longer than the buffer, which holds its start
     */
    protected boolean isTruncated(int code) {
        return false;
    }

    /** @param call the call that failed @param code its error code @return the exception that says so */
    protected abstract NativeIoException exception(String call, int code);

    /** @param call the call that just failed @return the exception for this thread's error code */
    protected final NativeIoException lastException(String call) {
        return exception(call, lastError());
    }

    /**
     * @return a new non-blocking socket of the domain, TCP or UDP (for {@code AF_UNIX}: a stream or a
     * datagram socket), not inherited by child processes
     */
    protected abstract long openSocket(int domain, Protocol protocol) throws NativeIoException;

    /** @return {@code bind}'s result: 0, or -1 */
    protected abstract int bindCall(long socket, long address, int length);

    /** @return {@code listen}'s result: 0, or -1 */
    protected abstract int listenCall(long socket, int backlog);

    /** @return the accepted socket, or {@link #FAILED} */
    protected abstract long acceptCall(long listener);

    /**
     * Readies an accepted socket; the socket is closed when this throws.
     * @param socket a socket just accepted
     * @throws NativeIoException when it could not be readied
     */
    protected void accepted(long socket) throws NativeIoException {
    }

    /** @return {@code connect}'s result: 0, or -1 */
    protected abstract int connectCall(long socket, long address, int length);

    /** @return {@code recv}'s result: the bytes read, or -1 */
    protected abstract long recvCall(long socket, long buffer, int length);

    /** @return {@code send}'s result: the bytes sent, or -1 */
    protected abstract long sendCall(long socket, long buffer, int length);

    /** @return {@code recvfrom}'s result: the datagram's length, or -1 */
    protected abstract long recvFromCall(long socket, long buffer, int length, long address, long addressLength);

    /** @return {@code sendto}'s result: the bytes sent, or -1 */
    protected abstract long sendToCall(long socket, long buffer, int length, long address, int addressLength);

    /** @return {@code setsockopt}'s result: 0, or -1 */
    protected abstract int setOptionCall(long socket, int level, int name, long value, int length);

    /** @return {@code getsockopt}'s result: 0, or -1 */
    protected abstract int getOptionCall(long socket, int level, int name, long value, long length);

    /** @return {@code shutdown}'s result: 0, or -1 */
    protected abstract int shutdownCall(long socket, int how);

    /** @return the result of the call that closes a socket: 0, or -1 */
    protected abstract int closeCall(long socket);

    /** @return {@code getsockname}'s (local) or {@code getpeername}'s result: 0, or -1 */
    protected abstract int nameCall(long socket, boolean local, long address, long addressLength);

    @Override
    public final long open(Protocol protocol, StandardProtocolFamily family) throws NativeIoException {
        int domain = switch (family) {
            case INET -> this.constants.afInet();
            case INET6 -> this.constants.afInet6();
            case UNIX -> this.constants.afUnix();
            default -> throw new IllegalArgumentException("Protocol family " + family + " is not supported; use INET, INET6 or UNIX");
        };
        return openSocket(domain, protocol);
    }

    @Override
    public void bind(long socket, SocketAddress address) throws NativeIoException {
        try (Scratch local = scratch()) {
            int length = this.layout.encode(address, local.address().buffer());
            if (bindCall(socket, local.address().address(), length) != 0) {
                throw lastException("bind(" + address + ")");
            }
        }
    }

    @Override
    public final void listen(long socket, int backlog) throws NativeIoException {
        if (listenCall(socket, backlog) != 0) {
            throw lastException("listen");
        }
    }

    @Override
    public final long accept(long listener) throws NativeIoException {
        long socket;
        int code = 0;
        do {
            socket = acceptCall(listener);
        }
        while (socket == FAILED && isInterrupted(code = lastError()));
        if (socket == FAILED) {
            if (isWouldBlock(code)) {
                return NO_SOCKET;
            }
            throw exception(this.constants.acceptName(), code);
        }
        try {
            accepted(socket);
            return socket;
        }
        catch (NativeIoException ex) {
            // The readying's error is the one reported, not a failure to close.
            closeCall(socket);
            throw ex;
        }
    }

    @Override
    public final boolean connect(long socket, SocketAddress address) throws NativeIoException {
        try (Scratch local = scratch()) {
            int length = this.layout.encode(address, local.address().buffer());
            if (connectCall(socket, local.address().address(), length) == 0) {
                return true;
            }
            int code = lastError();
            if (isConnectPending(code)) {
                return false;
            }
            throw exception("connect(" + address + ")", code);
        }
    }

    @Override
    public final int recv(long socket, NativeBuffer buffer) throws NativeIoException {
        ByteBuffer target = buffer.buffer();
        int position = target.position();
        long read;
        int code = 0;
        do {
            read = recvCall(socket, buffer.address() + position, target.limit() - position);
        }
        while (read < 0 && isInterrupted(code = lastError()));
        if (read >= 0) {
            target.position(position + (int) read);
            return (int) read;
        }
        return wouldBlockOr("recv", code);
    }

    @Override
    public final int send(long socket, NativeBuffer buffer) throws NativeIoException {
        ByteBuffer source = buffer.buffer();
        int position = source.position();
        long sent;
        int code = 0;
        do {
            sent = sendCall(socket, buffer.address() + position, source.limit() - position);
        }
        while (sent < 0 && isInterrupted(code = lastError()));
        if (sent >= 0) {
            source.position(position + (int) sent);
            return (int) sent;
        }
        return wouldBlockOr("send", code);
    }

    /**
     * {@inheritDoc}
     * <p>
     * Where the system does not tell the length of a datagram longer than the buffer (Winsock fills
     * the buffer and fails with {@code WSAEMSGSIZE}), that datagram is returned truncated, its length
     * reported as the buffer's room.
     */
    @Override
    public final int receiveFrom(long socket, NativeBuffer buffer, PeerAddress sender) throws NativeIoException {
        try (Scratch local = scratch()) {
            NativeBuffer address = local.address();
            long addressLength = local.addressToFill();
            ByteBuffer target = buffer.buffer();
            int position = target.position();
            int room = target.limit() - position;
            long read;
            int code = 0;
            do {
                read = recvFromCall(socket, buffer.address() + position, room, address.address(), addressLength);
            }
            while (read < 0 && isInterrupted(code = lastError()));
            if (read < 0) {
                if (isWouldBlock(code)) {
                    return WOULD_BLOCK;
                }
                if (!isTruncated(code)) {
                    throw exception("recvfrom", code);
                }
                read = room;
            }
            target.position(position + (int) Math.min(read, room));
            this.layout.decode(address.buffer(), local.bytes(), sender);
            return (int) read;
        }
    }

    /**
     * Decodes the sender a batch call wrote into {@link #senderMemory}, its length at {@link SocketAddressLayout#LENGTH_OFFSET}.
     * @param batch the batch
     * @param index the datagram's index
     */
    protected final void decodeSender(DatagramBatch batch, int index) {
        this.layout.decode(batch.address(index).buffer(), batch.scratch(), batch.senderSlot(index));
    }

    /**
     * Encodes an address as the system's {@code sockaddr}.
     * @param address an IP socket address or a Unix domain socket's path
     * @param target native memory in native byte order, from its index 0, at least {@link SocketAddressLayout#STORAGE_SIZE} bytes
     * @return the encoded length
     */
    protected final int encodeAddress(SocketAddress address, ByteBuffer target) {
        return this.layout.encode(address, target);
    }

    /**
     * Encodes a send batch's target into its {@link #targetMemory}.
     * @param batch the batch
     * @param index the datagram's index
     * @return the encoded address's length
     */
    protected final int encodeTarget(OutgoingDatagrams batch, int index) {
        return this.layout.encode(batch.target(index), batch.scratch(), batch.address(index).buffer());
    }

    @Override
    public final int sendTo(long socket, NativeBuffer buffer, PeerAddress target) throws NativeIoException {
        try (Scratch local = scratch()) {
            int length = this.layout.encode(target, local.bytes(), local.address().buffer());
            ByteBuffer source = buffer.buffer();
            int position = source.position();
            long sent;
            int code = 0;
            do {
                sent = sendToCall(socket, buffer.address() + position, source.limit() - position,
                        local.address().address(), length);
            }
            while (sent < 0 && isInterrupted(code = lastError()));
            if (sent >= 0) {
                source.position(position + (int) sent);
                return (int) sent;
            }
            return wouldBlockOr("sendto", code);
        }
    }

    @Override
    public void setOption(long socket, NativeSocketOption option, int value) throws NativeIoException {
        OptionName where = where(option, "setsockopt");
        if (option == NativeSocketOption.LINGER) {
            setLinger(socket, where, value);
            return;
        }
        setIntOption(socket, where.level(), where.name(), value, option.name());
    }

    @Override
    public @Nullable String unsupported(NativeSocketOption option, int value) {
        return this.constants.options().containsKey(option) ? null : absence(option);
    }

    /**
     * @param option an option the system has not
     * @return why, in a sentence; a backend names its system's alternative where it has one
     */
    protected String absence(NativeSocketOption option) {
        return System.getProperty("os.name") + " has no " + option.nativeName();
    }

    private OptionName where(NativeSocketOption option, String call) throws NativeIoException {
        OptionName where = this.constants.options().get(option);
        if (where == null) {
            throw new NativeIoException(call + "(" + option.nativeName() + ")", NativeError.NOT_SUPPORTED, this.constants.noSuchOption(),
                    absence(option));
        }
        return where;
    }

    /** SO_LINGER's {@code struct linger}: on or off, then the seconds; a negative value turns it off. */
    private void setLinger(long socket, OptionName where, int seconds) throws NativeIoException {
        int field = this.constants.lingerFieldBytes();
        try (Scratch local = scratch()) {
            NativeBuffer holder = local.option();
            ByteBuffer linger = holder.buffer();
            if (field == 2) {
                linger.putShort(0, (short) ((seconds >= 0) ? 1 : 0)).putShort(2, (short) Math.max(0, seconds));
            }
            else {
                linger.putInt(0, (seconds >= 0) ? 1 : 0).putInt(4, Math.max(0, seconds));
            }
            if (setOptionCall(socket, where.level(), where.name(), holder.address(), 2 * field) != 0) {
                throw lastException("setsockopt(SO_LINGER)");
            }
        }
    }

    private int linger(long socket, OptionName where) throws NativeIoException {
        int field = this.constants.lingerFieldBytes();
        try (Scratch local = scratch()) {
            NativeBuffer holder = local.option();
            ByteBuffer linger = holder.buffer();
            linger.putLong(0, 0).putInt(8, 2 * field);
            if (getOptionCall(socket, where.level(), where.name(), holder.address(), holder.address() + 8) != 0) {
                throw lastException("getsockopt(SO_LINGER)");
            }
            boolean on = (field == 2) ? linger.getShort(0) != 0 : linger.getInt(0) != 0;
            int seconds = (field == 2) ? Short.toUnsignedInt(linger.getShort(2)) : linger.getInt(4);
            return on ? seconds : -1;
        }
    }

    /**
     * Sets an option that takes an {@code int}.
     * @param label the option's name, for the exception
     * @throws NativeIoException when {@code setsockopt} fails
     */
    protected final void setIntOption(long socket, int level, int name, int value, String label) throws NativeIoException {
        try (Scratch local = scratch()) {
            NativeBuffer holder = local.option();
            holder.buffer().putInt(0, value);
            if (setOptionCall(socket, level, name, holder.address(), 4) != 0) {
                throw lastException("setsockopt(" + label + ")");
            }
        }
    }

    @Override
    public int getOption(long socket, NativeSocketOption option) throws NativeIoException {
        OptionName where = where(option, "getsockopt");
        return (option == NativeSocketOption.LINGER) ? linger(socket, where) : intOption(socket, where.level(), where.name(), option.name());
    }

    @Override
    public final @Nullable NativeIoException takeError(long socket) throws NativeIoException {
        int code = intOption(socket, this.constants.solSocket(), this.constants.soError(), "SO_ERROR");
        return (code == 0) ? null : exception("SO_ERROR", code);
    }

    private int intOption(long socket, int level, int name, String label) throws NativeIoException {
        try (Scratch local = scratch()) {
            NativeBuffer holder = local.option();
            holder.buffer().putInt(0, 0).putInt(4, 4);
            if (getOptionCall(socket, level, name, holder.address(), holder.address() + 4) != 0) {
                throw lastException("getsockopt(" + label + ")");
            }
            return holder.buffer().getInt(0);
        }
    }

    @Override
    public final void shutdown(long socket, boolean input, boolean output) throws NativeIoException {
        if (!input && !output) {
            return;
        }
        int how = (input && output) ? SHUT_RDWR : (input ? SHUT_RD : SHUT_WR);
        if (shutdownCall(socket, how) != 0) {
            throw lastException("shutdown");
        }
    }

    @Override
    public final void close(long socket) throws NativeIoException {
        if (closeCall(socket) != 0) {
            throw lastException(this.constants.closeName());
        }
    }

    @Override
    public final SocketAddress localAddress(long socket) throws NativeIoException {
        return name(socket, true);
    }

    @Override
    public final SocketAddress remoteAddress(long socket) throws NativeIoException {
        return name(socket, false);
    }

    @Override
    public final long @Nullable [] peerCredentials(long socket) throws NativeIoException {
        if (this.constants.soPeerCred() == Constants.NO_OPTION) {
            return null;
        }
        try (Scratch local = scratch()) {
            NativeBuffer holder = local.option();
            ByteBuffer credentials = holder.buffer();
            credentials.putInt(UCRED_SIZE, UCRED_SIZE);
            if (getOptionCall(socket, this.constants.solSocket(), this.constants.soPeerCred(), holder.address(),
                    holder.address() + UCRED_SIZE) != 0) {
                throw lastException("getsockopt(SO_PEERCRED)");
            }
            return new long[] { credentials.getInt(0), Integer.toUnsignedLong(credentials.getInt(4)),
                    Integer.toUnsignedLong(credentials.getInt(8)) };
        }
    }

    private SocketAddress name(long socket, boolean local) throws NativeIoException {
        try (Scratch scratch = scratch()) {
            NativeBuffer address = scratch.address();
            long lengthAddress = scratch.addressToFill();
            if (nameCall(socket, local, address.address(), lengthAddress) != 0) {
                throw lastException(local ? "getsockname" : "getpeername");
            }
            return this.layout.decode(address.buffer());
        }
    }

    private int wouldBlockOr(String call, int code) throws NativeIoException {
        if (isWouldBlock(code)) {
            return WOULD_BLOCK;
        }
        throw exception(call, code);
    }
}
