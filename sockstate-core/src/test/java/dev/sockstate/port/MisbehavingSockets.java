package dev.sockstate.port;

import dev.sockstate.port.MisbehavingBackend.Fault;
import dev.sockstate.port.MisbehavingBackend.Registration;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * The sockets of a {@link MisbehavingBackend}: real sockets whose reads and writes are now and then
 * cut short, would block though they would not, or (a write) find no system buffers. Accepts and
 * datagrams' sends are left as they are (see each).
 */
final class MisbehavingSockets implements NativeSockets {

    private final NativeSockets real;

    private final MisbehavingBackend backend;

    MisbehavingSockets(NativeSockets real, MisbehavingBackend backend) {
        this.real = real;
        this.backend = backend;
    }

    @Override
    public long open(Protocol protocol, StandardProtocolFamily family) throws NativeIoException {
        return this.real.open(protocol, family);
    }

    @Override
    public void bind(long socket, SocketAddress address) throws NativeIoException {
        this.real.bind(socket, address);
    }

    @Override
    public void listen(long socket, int backlog) throws NativeIoException {
        this.real.listen(socket, backlog);
    }

    @Override
    public long accept(long listener) throws NativeIoException {
        // Never "none pending" while one is: a stopping server closes its listener once the backlog
        // reads empty, and could not tell a lie from a connection that came a moment too late.
        long socket = this.real.accept(listener);
        if (socket != NO_SOCKET) {
            this.backend.accepted.add(socket);
        }
        return socket;
    }

    @Override
    public boolean connect(long socket, SocketAddress address) throws NativeIoException {
        return this.real.connect(socket, address);
    }

    @Override
    public int recv(long socket, NativeBuffer buffer) throws NativeIoException {
        return read(socket, buffer.buffer(), () -> this.real.recv(socket, buffer));
    }

    @Override
    public int recv(long socket, ByteBuffer target) throws NativeIoException {
        return read(socket, target, () -> this.real.recv(socket, target));
    }

    @Override
    public int send(long socket, NativeBuffer buffer) throws NativeIoException {
        return write(socket, buffer.buffer(), () -> this.real.send(socket, buffer));
    }

    @Override
    public int send(long socket, ByteBuffer source) throws NativeIoException {
        return write(socket, source, () -> this.real.send(socket, source));
    }

    @Override
    public int receiveFrom(long socket, NativeBuffer buffer, PeerAddress sender) throws NativeIoException {
        if (this.backend.chance(Fault.READ_WOULD_BLOCK)) {
            this.backend.owe(socket, Events.IN);
            return WOULD_BLOCK;
        }
        return this.real.receiveFrom(socket, buffer, sender);
    }

    @Override
    public DatagramBatch datagramBatch(int datagrams, int datagramSize, boolean coalesced) {
        return this.real.datagramBatch(datagrams, datagramSize, coalesced);
    }

    @Override
    public int receiveBatch(long socket, DatagramBatch batch) throws NativeIoException {
        if (this.backend.chance(Fault.READ_WOULD_BLOCK)) {
            this.backend.owe(socket, Events.IN);
            return WOULD_BLOCK;
        }
        return this.real.receiveBatch(socket, batch);
    }

    // A datagram's send is never refused: one that would block is dropped and counted, by design, as the
    // kernel drops those its buffers cannot take; a refusal would be a loss the handler sees.

    @Override
    public @Nullable String multicastUnsupported() {
        return this.real.multicastUnsupported();
    }

    @Override
    public boolean joinsOnAnyInterface() {
        return this.real.joinsOnAnyInterface();
    }

    @Override
    public void joinGroup(long socket, java.net.InetAddress group, int interfaceIndex, java.net.@Nullable InetAddress source)
            throws NativeIoException {
        this.real.joinGroup(socket, group, interfaceIndex, source);
    }

    @Override
    public void leaveGroup(long socket, java.net.InetAddress group, int interfaceIndex, java.net.@Nullable InetAddress source)
            throws NativeIoException {
        this.real.leaveGroup(socket, group, interfaceIndex, source);
    }

    @Override
    public void sendMulticast(long socket, java.net.StandardProtocolFamily family, int interfaceIndex, int hops, boolean loopback)
            throws NativeIoException {
        this.real.sendMulticast(socket, family, interfaceIndex, hops, loopback);
    }

    @Override
    public @Nullable OutgoingDatagrams outgoingDatagrams(int datagrams) {
        return this.real.outgoingDatagrams(datagrams);
    }

    @Override
    public boolean sendsManyInOneCall() {
        return this.real.sendsManyInOneCall();
    }

    @Override
    public int sendBatch(long socket, OutgoingDatagrams batch, int from) throws NativeIoException {
        return this.real.sendBatch(socket, batch, from);
    }

    @Override
    public int sendTo(long socket, NativeBuffer buffer, PeerAddress target) throws NativeIoException {
        return this.real.sendTo(socket, buffer, target);
    }

    @Override
    public int sendTo(long socket, ByteBuffer datagram, PeerAddress target) throws NativeIoException {
        return this.real.sendTo(socket, datagram, target);
    }

    @Override
    public void setOption(long socket, NativeSocketOption option, int value) throws NativeIoException {
        this.real.setOption(socket, option, value);
    }

    @Override
    public int getOption(long socket, NativeSocketOption option) throws NativeIoException {
        return this.real.getOption(socket, option);
    }

    @Override
    public @Nullable String unsupported(NativeSocketOption option, int value) {
        return this.real.unsupported(option, value);
    }

    @Override
    public NativeIoException takeError(long socket) throws NativeIoException {
        return this.real.takeError(socket);
    }

    @Override
    public void shutdown(long socket, boolean input, boolean output) throws NativeIoException {
        this.real.shutdown(socket, input, output);
    }

    @Override
    public void close(long socket) throws NativeIoException {
        this.backend.accepted.remove(socket);
        Registration registration = this.backend.registrations.remove(socket);
        if (registration != null) {
            registration.port.closed(registration);
        }
        this.real.close(socket);
    }

    @Override
    public SocketAddress localAddress(long socket) throws NativeIoException {
        return this.real.localAddress(socket);
    }

    @Override
    public SocketAddress remoteAddress(long socket) throws NativeIoException {
        return this.real.remoteAddress(socket);
    }

    @Override
    public long[] peerCredentials(long socket) throws NativeIoException {
        return this.real.peerCredentials(socket);
    }

    @Override
    public NativeBuffer allocate(int capacity) {
        return this.real.allocate(capacity);
    }

    /** @return the read's result: would block (data owed), cut short, or as the real socket gives it */
    private int read(long socket, ByteBuffer target, Call call) throws NativeIoException {
        if (!this.backend.readsMayMisbehave(socket)) {
            return call.make();
        }
        if (this.backend.chance(Fault.READ_WOULD_BLOCK)) {
            this.backend.owe(socket, Events.IN);
            return WOULD_BLOCK;
        }
        return cutShort(socket, target, Fault.SHORT_READ, Events.IN, call);
    }

    /** @return the write's result: would block (room owed), refused for want of buffers (thrown), cut short, or real */
    private int write(long socket, ByteBuffer source, Call call) throws NativeIoException {
        if (refusedWrite(socket)) {
            return WOULD_BLOCK;
        }
        return cutShort(socket, source, Fault.SHORT_WRITE, Events.OUT, call);
    }

    /** @return the call's result, now and then made with the buffer's room cut to part of it (the event owed) */
    private int cutShort(long socket, ByteBuffer buffer, Fault fault, int event, Call call) throws NativeIoException {
        int limit = buffer.limit();
        int length = limit - buffer.position();
        if (length < 2 || !this.backend.chance(fault)) {
            return call.make();
        }
        buffer.limit(buffer.position() + 1 + this.backend.draw(length - 1));
        try {
            return owedIfShort(socket, call.make(), event);
        }
        finally {
            buffer.limit(limit);
        }
    }

    /** A read or write of the real sockets. */
    @FunctionalInterface
    private interface Call {
        int make() throws NativeIoException;
    }

    /** @return whether this write is refused: would block (room owed), or no buffers (thrown) */
    private boolean refusedWrite(long socket) throws NativeIoException {
        if (this.backend.chance(Fault.WRITE_WOULD_BLOCK)) {
            this.backend.owe(socket, Events.OUT);
            return true;
        }
        if (this.backend.chance(Fault.NO_BUFFERS)) {
            throw new NativeIoException("send", NativeError.NO_MEMORY, 105, "No buffer space available");
        }
        return false;
    }

    /** @return the result, after owing the event when the call did something (the rest might have raised an edge) */
    private int owedIfShort(long socket, int result, int event) {
        if (result > 0) {
            this.backend.owe(socket, event);
        }
        return result;
    }
}
