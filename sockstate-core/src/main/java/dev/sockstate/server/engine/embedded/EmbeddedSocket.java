package dev.sockstate.server.engine.embedded;

import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.Protocol;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * The one socket of an embedded connection ({@code dev.sockstate.server.engine.EmbeddedConnection}),
 * in memory: the {@link NativeSockets} its connection reads from and sends to, with the peer's side
 * held as plain buffers; its port is an {@link EmbeddedPort}. A read
 * takes what the peer wrote, up to the buffer's room (bytes the peer wrote in several writes may
 * come in one read, as from a real socket); a send is always taken whole, as by a socket whose
 * buffer never fills, and kept as one buffer for the test to read. Only the calls a connection
 * makes are supported; the others (accepting, binding, datagrams) are refused. Used by the thread
 * that drives the harness.
 */
public final class EmbeddedSocket implements NativeSockets {

    /** The handle of the one socket. */
    public static final long HANDLE = 1;

    private final SocketAddress localAddress;

    private final SocketAddress remoteAddress;

    /** What the peer wrote and the connection has not read yet, oldest first. */
    private final ArrayDeque<ByteBuffer> inbound = new ArrayDeque<>();

    /** What the connection sent, one buffer a send, oldest first. */
    private final ArrayDeque<ByteBuffer> outbound = new ArrayDeque<>();

    /** Whether the peer shut its side: once {@link #inbound} is read, reads see the end of the stream. */
    private boolean peerShut;

    /** An error the peer caused (a reset), reported once by {@link #takeError}, then by every call. */
    private @Nullable NativeIoException peerError;

    private boolean errorTaken;

    private boolean outputShut;

    private boolean closed;

    /** How often the peer changed the socket's state (wrote, shut, reset): an edge for an edge-triggered registration. */
    private long changes;

    /**
     * @param localAddress what {@link #localAddress} answers
     * @param remoteAddress what {@link #remoteAddress} answers, the peer's
     */
    public EmbeddedSocket(SocketAddress localAddress, SocketAddress remoteAddress) {
        this.localAddress = localAddress;
        this.remoteAddress = remoteAddress;
    }

    /** @param data bytes the peer wrote, from position to limit; consumed (copied) */
    public void peerWrites(ByteBuffer data) {
        ByteBuffer copy = ByteBuffer.allocate(data.remaining()).put(data);
        this.inbound.addLast(copy.flip());
        this.changes++;
    }

    /** The peer shut its side (a FIN): no more bytes arrive. */
    public void peerShuts() {
        this.peerShut = true;
        this.changes++;
    }

    /** The peer reset the connection: an error is pending, and later calls fail. */
    public void peerResets() {
        this.peerError = new NativeIoException("recv", NativeError.CONNECTION_RESET, 0, "the embedded peer reset the connection");
        this.changes++;
    }

    /** @return how often the peer changed the socket's state so far */
    long changes() {
        return this.changes;
    }

    /** @return whether a read would return bytes or the end of the stream */
    public boolean readable() {
        return !this.inbound.isEmpty() || this.peerShut;
    }

    /** @return whether the peer shut its side */
    public boolean peerShut() {
        return this.peerShut;
    }

    /** @return whether an error waits to be taken */
    public boolean errorPending() {
        return this.peerError != null && !this.errorTaken;
    }

    /** @return the oldest send not taken by the test yet, or {@code null} */
    public @Nullable ByteBuffer takeSent() {
        return this.outbound.pollFirst();
    }

    /** @return whether the connection sent its FIN */
    public boolean outputShut() {
        return this.outputShut;
    }

    /** @return whether the connection closed the socket */
    public boolean closed() {
        return this.closed;
    }

    @Override
    public int recv(long socket, NativeBuffer buffer) throws NativeIoException {
        return recv(socket, buffer.buffer());
    }

    @Override
    public int recv(long socket, ByteBuffer buffer) throws NativeIoException {
        check("recv");
        if (this.inbound.isEmpty()) {
            return this.peerShut ? 0 : WOULD_BLOCK;
        }
        int read = 0;
        while (buffer.hasRemaining() && !this.inbound.isEmpty()) {
            ByteBuffer head = this.inbound.peekFirst();
            int take = Math.min(head.remaining(), buffer.remaining());
            buffer.put(buffer.position(), head, head.position(), take).position(buffer.position() + take);
            head.position(head.position() + take);
            read += take;
            if (!head.hasRemaining()) {
                this.inbound.pollFirst();
            }
        }
        return read;
    }

    @Override
    public int send(long socket, NativeBuffer buffer) throws NativeIoException {
        return send(socket, buffer.buffer());
    }

    @Override
    public int send(long socket, ByteBuffer buffer) throws NativeIoException {
        check("send");
        if (this.outputShut) {
            throw new NativeIoException("send", NativeError.BROKEN_PIPE, 0, "the embedded connection's output is shut");
        }
        int sent = buffer.remaining();
        ByteBuffer copy = ByteBuffer.allocate(sent).put(buffer);
        this.outbound.addLast(copy.flip().asReadOnlyBuffer());
        return sent;
    }

    private void check(String call) throws NativeIoException {
        if (this.closed) {
            throw new NativeIoException(call, NativeError.BAD_DESCRIPTOR, 0, "the embedded socket is closed");
        }
        if (this.peerError != null) {
            throw new NativeIoException(call, this.peerError.error(), 0, "the embedded peer reset the connection");
        }
    }

    @Override
    public @Nullable NativeIoException takeError(long socket) {
        if (this.errorTaken) {
            return null;
        }
        this.errorTaken = this.peerError != null;
        return this.peerError;
    }

    @Override
    public void shutdown(long socket, boolean input, boolean output) throws NativeIoException {
        check("shutdown");
        this.outputShut |= output;
    }

    @Override
    public void close(long socket) {
        this.closed = true;
    }

    @Override
    public SocketAddress localAddress(long socket) {
        return this.localAddress;
    }

    @Override
    public SocketAddress remoteAddress(long socket) {
        return this.remoteAddress;
    }

    /** A direct buffer with no native address: nothing native reads it, the reads above copy into it. */
    @Override
    public NativeBuffer allocate(int capacity) {
        return new NativeBuffer(ByteBuffer.allocateDirect(capacity).order(ByteOrder.nativeOrder()), 0);
    }

    @Override
    public long open(Protocol protocol, StandardProtocolFamily family) {
        throw refused("opens no socket");
    }

    @Override
    public void bind(long socket, SocketAddress address) {
        throw refused("binds nothing");
    }

    @Override
    public void listen(long socket, int backlog) {
        throw refused("listens on nothing");
    }

    @Override
    public long accept(long listener) {
        throw refused("accepts nothing");
    }

    @Override
    public boolean connect(long socket, SocketAddress address) {
        throw refused("connects nowhere");
    }

    @Override
    public int receiveFrom(long socket, NativeBuffer buffer, PeerAddress sender) {
        throw refused("receives no datagram");
    }

    @Override
    public int sendTo(long socket, NativeBuffer buffer, PeerAddress target) {
        throw refused("sends no datagram");
    }

    @Override
    public int sendTo(long socket, ByteBuffer datagram, PeerAddress target) {
        throw refused("sends no datagram");
    }

    @Override
    public @Nullable String unsupported(NativeSocketOption option, int value) {
        return null;
    }

    @Override
    public void setOption(long socket, NativeSocketOption option, int value) {
        throw refused("has no socket options");
    }

    @Override
    public int getOption(long socket, NativeSocketOption option) {
        throw refused("has no socket options");
    }

    private static UnsupportedOperationException refused(String what) {
        return new UnsupportedOperationException("An embedded connection " + what);
    }
}
