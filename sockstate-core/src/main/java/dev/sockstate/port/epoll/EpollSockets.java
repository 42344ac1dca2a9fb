package dev.sockstate.port.epoll;

import dev.sockstate.port.AbstractBsdSockets;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.Protocol;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.Map;

/**
 * Non-blocking Linux sockets through libc: descriptors an {@link EpollPort} registers. Each call is
 * the libc call on the {@link EpollCalls} the backend gave, with the handle narrowed to a descriptor;
 * a send never raises {@code SIGPIPE} ({@code MSG_NOSIGNAL}).
 */
final class EpollSockets extends AbstractBsdSockets {

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
