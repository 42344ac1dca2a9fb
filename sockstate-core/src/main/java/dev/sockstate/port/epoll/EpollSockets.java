package dev.sockstate.port.epoll;

import dev.sockstate.port.AbstractNativeSockets;
import dev.sockstate.port.NativeBuffer;
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
 * Non-blocking Linux sockets through libc: descriptors an {@link EpollPort} registers, each call made
 * on the {@link EpollCalls} the backend gave.
 */
final class EpollSockets extends AbstractNativeSockets {

    private static final SocketAddressLayout LAYOUT = new SocketAddressLayout(LinuxNative.AF_INET, LinuxNative.AF_INET6);

    private final EpollCalls calls;

    /** @param calls the binding the sockets call libc through */
    EpollSockets(EpollCalls calls) {
        this.calls = calls;
    }

    /** @return the binding the sockets call libc through, which their port shares */
    EpollCalls calls() {
        return this.calls;
    }

    @Override
    public long open(Protocol protocol, StandardProtocolFamily family) throws NativeIoException {
        int domain = switch (family) {
            case INET -> LinuxNative.AF_INET;
            case INET6 -> LinuxNative.AF_INET6;
            default -> throw new IllegalArgumentException("Protocol family " + family + " is not supported; use INET or INET6");
        };
        int type = (protocol == Protocol.TCP) ? LinuxNative.SOCK_STREAM : LinuxNative.SOCK_DGRAM;
        int fd = this.calls.socket(domain, type | LinuxNative.SOCK_NONBLOCK | LinuxNative.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw Errno.last(this.calls, "socket");
        }
        return fd;
    }

    @Override
    public void bind(long socket, InetSocketAddress address) throws NativeIoException {
        try (Scratch local = scratch()) {
            int length = LAYOUT.encode(address, local.address().buffer());
            if (this.calls.bind(fd(socket), local.address().address(), length) != 0) {
                throw Errno.last(this.calls, "bind(" + address + ")");
            }
        }
    }

    @Override
    public void listen(long socket, int backlog) throws NativeIoException {
        if (this.calls.listen(fd(socket), backlog) != 0) {
            throw Errno.last(this.calls, "listen");
        }
    }

    @Override
    public long accept(long listener) throws NativeIoException {
        int fd = this.calls.accept4(fd(listener), 0, 0, LinuxNative.SOCK_NONBLOCK | LinuxNative.SOCK_CLOEXEC);
        if (fd >= 0) {
            return fd;
        }
        int errno = this.calls.errno();
        if (errno == Errno.EAGAIN) {
            return NO_SOCKET;
        }
        throw Errno.exception(this.calls, "accept4", errno);
    }

    @Override
    public boolean connect(long socket, InetSocketAddress address) throws NativeIoException {
        try (Scratch local = scratch()) {
            int length = LAYOUT.encode(address, local.address().buffer());
            if (this.calls.connect(fd(socket), local.address().address(), length) == 0) {
                return true;
            }
            int errno = this.calls.errno();
            if (errno == Errno.EINPROGRESS) {
                return false;
            }
            throw Errno.exception(this.calls, "connect(" + address + ")", errno);
        }
    }

    @Override
    public int recv(long socket, NativeBuffer buffer) throws NativeIoException {
        ByteBuffer target = buffer.buffer();
        int position = target.position();
        long read = this.calls.recv(fd(socket), buffer.address() + position, target.limit() - position, 0);
        if (read >= 0) {
            target.position(position + (int) read);
            return (int) read;
        }
        return wouldBlockOr("recv");
    }

    @Override
    public int send(long socket, NativeBuffer buffer) throws NativeIoException {
        ByteBuffer source = buffer.buffer();
        int position = source.position();
        long sent = this.calls.send(fd(socket), buffer.address() + position, source.limit() - position,
                LinuxNative.MSG_NOSIGNAL);
        if (sent >= 0) {
            source.position(position + (int) sent);
            return (int) sent;
        }
        return wouldBlockOr("send");
    }

    @Override
    public int receiveFrom(long socket, NativeBuffer buffer, PeerAddress sender) throws NativeIoException {
        try (Scratch local = scratch()) {
            NativeBuffer address = local.address();
            long addressLength = local.addressToFill();
            ByteBuffer target = buffer.buffer();
            int position = target.position();
            long read = this.calls.recvfrom(fd(socket), buffer.address() + position, target.limit() - position, 0,
                    address.address(), addressLength);
            if (read < 0) {
                return wouldBlockOr("recvfrom");
            }
            target.position(position + (int) Math.min(read, target.limit() - position));
            LAYOUT.decode(address.buffer(), local.bytes(), sender);
            return (int) read;
        }
    }

    @Override
    public int sendTo(long socket, NativeBuffer buffer, PeerAddress target) throws NativeIoException {
        try (Scratch local = scratch()) {
            int length = LAYOUT.encode(target, local.bytes(), local.address().buffer());
            ByteBuffer source = buffer.buffer();
            int position = source.position();
            long sent = this.calls.sendto(fd(socket), buffer.address() + position, source.limit() - position,
                    LinuxNative.MSG_NOSIGNAL, local.address().address(), length);
            if (sent >= 0) {
                source.position(position + (int) sent);
                return (int) sent;
            }
            return wouldBlockOr("sendto");
        }
    }

    @Override
    public void setOption(long socket, NativeSocketOption option, int value) throws NativeIoException {
        try (Scratch local = scratch()) {
            NativeBuffer holder = local.option();
            holder.buffer().putInt(0, value);
            if (this.calls.setsockopt(fd(socket), level(option), name(option), holder.address(), 4) != 0) {
                throw Errno.last(this.calls, "setsockopt(" + option + ")");
            }
        }
    }

    @Override
    public int getOption(long socket, NativeSocketOption option) throws NativeIoException {
        return intOption(socket, level(option), name(option), option.name());
    }

    @Override
    public NativeIoException takeError(long socket) throws NativeIoException {
        int errno = intOption(socket, LinuxNative.SOL_SOCKET, LinuxNative.SO_ERROR, "SO_ERROR");
        return (errno == 0) ? null : Errno.exception(this.calls, "SO_ERROR", errno);
    }

    private int intOption(long socket, int level, int name, String label) throws NativeIoException {
        try (Scratch local = scratch()) {
            NativeBuffer holder = local.option();
            holder.buffer().putInt(0, 0).putInt(4, 4);
            if (this.calls.getsockopt(fd(socket), level, name, holder.address(), holder.address() + 4) != 0) {
                throw Errno.last(this.calls, "getsockopt(" + label + ")");
            }
            return holder.buffer().getInt(0);
        }
    }

    @Override
    public void shutdown(long socket, boolean input, boolean output) throws NativeIoException {
        if (!input && !output) {
            return;
        }
        int how = (input && output) ? LinuxNative.SHUT_RDWR : (input ? LinuxNative.SHUT_RD : LinuxNative.SHUT_WR);
        if (this.calls.shutdown(fd(socket), how) != 0) {
            throw Errno.last(this.calls, "shutdown");
        }
    }

    @Override
    public void close(long socket) throws NativeIoException {
        if (this.calls.close(fd(socket)) != 0) {
            throw Errno.last(this.calls, "close");
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
            int result = local ? this.calls.getsockname(fd(socket), address.address(), lengthAddress)
                    : this.calls.getpeername(fd(socket), address.address(), lengthAddress);
            if (result != 0) {
                throw Errno.last(this.calls, local ? "getsockname" : "getpeername");
            }
            return LAYOUT.decode(address.buffer());
        }
    }

    private int wouldBlockOr(String call) throws NativeIoException {
        int errno = this.calls.errno();
        if (errno == Errno.EAGAIN) {
            return WOULD_BLOCK;
        }
        throw Errno.exception(this.calls, call, errno);
    }

    private static int fd(long socket) {
        int fd = (int) socket;
        if (fd != socket || fd < 0) {
            throw new IllegalArgumentException("Socket handle " + socket + " is not a file descriptor");
        }
        return fd;
    }

    private static int level(NativeSocketOption option) {
        return switch (option) {
            case TCP_NODELAY -> LinuxNative.IPPROTO_TCP;
            case IPV6_ONLY -> LinuxNative.IPPROTO_IPV6;
            default -> LinuxNative.SOL_SOCKET;
        };
    }

    private static int name(NativeSocketOption option) {
        return switch (option) {
            case REUSE_ADDRESS -> LinuxNative.SO_REUSEADDR;
            case REUSE_PORT -> LinuxNative.SO_REUSEPORT;
            case TCP_NODELAY -> LinuxNative.TCP_NODELAY;
            case RECEIVE_BUFFER -> LinuxNative.SO_RCVBUF;
            case SEND_BUFFER -> LinuxNative.SO_SNDBUF;
            case KEEP_ALIVE -> LinuxNative.SO_KEEPALIVE;
            case IPV6_ONLY -> LinuxNative.IPV6_V6ONLY;
        };
    }

    @Override
    protected long addressOf(ByteBuffer direct) {
        return this.calls.addressOf(direct);
    }
}
