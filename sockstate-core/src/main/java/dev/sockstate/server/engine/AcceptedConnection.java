package dev.sockstate.server.engine;

import dev.sockstate.port.NativeIoException;
import dev.sockstate.server.Connection;
import dev.sockstate.server.InvalidMessageException;
import dev.sockstate.server.PeerCredentials;
import dev.sockstate.server.engine.proxy.ProxyHost;
import dev.sockstate.server.engine.proxy.ProxyStage;
import dev.sockstate.server.engine.tls.TlsHost;
import dev.sockstate.server.engine.tls.TlsStage;
import dev.sockstate.server.engine.turn.SocketHome;
import dev.sockstate.server.engine.turn.SocketTurn;
import dev.sockstate.server.proxy.ProxyHeader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLSession;

/**
 * What a handler sees of a TCP connection beside its traffic: its number, its listener (or client),
 * its addresses (asked of the socket once, then kept; the peer's the client's that a PROXY protocol
 * header names), its TLS session and PROXY protocol header, the state a handler keeps on
 * it, typed messages, the close it asks for; and the deadlines the server's timer checks (idle time,
 * a TLS handshake's end). The traffic, the turn and the close itself are {@link TcpConnection}'s.
 */
abstract class AcceptedConnection extends SocketTurn implements Connection, TlsHost, ProxyHost {

    /** The listener that accepted it. */
    final Listener listener;

    private final long id;

    private volatile Map<String, Object> attributes;

    private volatile Object attachment;

    private volatile SocketAddress remoteAddress;

    private volatile SocketAddress localAddress;

    private volatile PeerCredentials peerCredentials;

    /** The TLS session once the handshake succeeded. */
    private volatile SSLSession tlsSession;

    /** When traffic last passed ({@link System#nanoTime()}), kept only with an idle timeout. */
    private volatile long lastActivity;

    /** The TLS stage while its handshake runs, for the timer's check; {@code null} otherwise. */
    private volatile TlsStage handshaking;

    /** The PROXY protocol header once read, {@code null} before and without one. */
    private volatile ProxyHeader proxyHeader;

    /** The PROXY protocol stage while it waits for the header, for the timer's check; {@code null} otherwise. */
    private volatile ProxyStage headerPending;

    AcceptedConnection(Listener listener, SocketHome home, long handle) {
        super(home, handle, listener.trigger(), true);
        this.listener = listener;
        this.id = listener.nextConnectionId();
    }

    /** The connection is finished: what the handler attached is let go. */
    final void dropAttachment() {
        this.attachment = null;
    }

    @Override
    public long id() {
        return this.id;
    }

    @Override
    public String listenerName() {
        return this.listener.isClient() ? null : this.listener.name();
    }

    @Override
    public String clientName() {
        return this.listener.isClient() ? this.listener.name() : null;
    }

    @Override
    public SocketAddress localAddress() {
        SocketAddress address = this.localAddress;
        return (address != null) ? address : (this.localAddress = address(true));
    }

    @Override
    public SocketAddress remoteAddress() {
        SocketAddress address = this.remoteAddress;
        return (address != null) ? address : (this.remoteAddress = address(false));
    }

    /** Read as the connection opens, by its owner: what the system recorded when the peer connected. */
    @Override
    public PeerCredentials peerCredentials() {
        return this.peerCredentials;
    }

    /**
     * Reads the peer's credentials of a connection to a Unix domain socket, once, as it opens on the
     * accepting thread: asked later from any thread, the descriptor could be a newer connection's.
     */
    final void readPeerCredentials() {
        if (!this.listener.settings().isUnix()) {
            return;
        }
        try {
            long[] ids = this.sockets.peerCredentials(this.handle);
            this.peerCredentials = (ids == null) ? null : new PeerCredentials(ids[0], ids[1], ids[2]);
        }
        catch (NativeIoException ex) {
            // Reset already: there is no peer to tell of, and the connection's first read will say so.
        }
    }

    private SocketAddress address(boolean local) {
        if (isFinished()) {
            throw new IllegalStateException(this + " is closed");
        }
        try {
            return local ? this.sockets.localAddress(this.handle) : this.sockets.remoteAddress(this.handle);
        }
        catch (NativeIoException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public final SocketAddress socketPeer() {
        ProxyHeader header = this.proxyHeader;
        return (header != null) ? header.proxyAddress() : remoteAddress();
    }

    @Override
    public final void proxied(ProxyHeader header) {
        // On an IP listener only an IP client can be the peer (a handler may take an InetSocketAddress);
        // on a Unix domain socket, a relayed client of any family.
        if (header.relaysClient() && (header.source() instanceof InetSocketAddress || !(header.proxyAddress() instanceof InetSocketAddress))) {
            this.remoteAddress = header.source();
        }
        this.proxyHeader = header;
    }

    @Override
    public final ProxyHeader proxyHeader() {
        return this.proxyHeader;
    }

    @Override
    public final void headerPending(ProxyStage stage) {
        this.headerPending = stage;
    }

    @Override
    public final void headerRefused(String message) {
        this.listener.proxyHeaderRefused(message);
    }

    @Override
    public SSLSession tlsSession() {
        return this.tlsSession;
    }

    @Override
    public final void handshakeSucceeded(SSLSession session) {
        this.tlsSession = session;
    }

    @Override
    public Map<String, Object> attributes() {
        Map<String, Object> map = this.attributes;
        if (map == null) {
            synchronized (this) {
                map = this.attributes;
                if (map == null) {
                    map = new ConcurrentHashMap<>();
                    this.attributes = map;
                }
            }
        }
        return map;
    }

    @Override
    public void attach(Object attachment) {
        this.attachment = attachment;
    }

    @Override
    public Object attachment() {
        return this.attachment;
    }

    @Override
    public void send(Object message) {
        write(this.listener.writeMessage(message));
    }

    @Override
    public <T> T readMessage(ByteBuffer message, Class<T> type) throws InvalidMessageException {
        return this.listener.readMessage(message, type);
    }

    @Override
    public void close() {
        requestClose(false);
    }

    /** Open while writes are taken: through a graceful stop's drain, which still answers what arrived. */
    @Override
    public boolean isOpen() {
        return !dropsWrites();
    }

    /** The connection is not idle: traffic just passed. */
    final void touch() {
        if (this.listener.idleTimeoutNanos() > 0) {
            this.lastActivity = System.nanoTime();
        }
    }

    /**
     * Closes the connection when it went without traffic too long; a connection a thread handles now
     * (a handler running) is not idle, and its time counts again from the end of that turn.
     * @param now the current {@link System#nanoTime()}
     */
    final void checkIdle(long now) {
        if (isOwned()) {
            this.lastActivity = now;
            return;
        }
        long idle = now - this.lastActivity;
        long limit = this.listener.idleTimeoutNanos();
        if (limit > 0 && idle > limit) {
            if (!isClosing()) {
                this.observer.idleClosed();
            }
            requestClose(idle > 2 * limit && isClosing());
        }
    }

    @Override
    public final void handshakeRunning(TlsStage stage) {
        this.handshaking = stage;
    }

    /**
     * Ends a PROXY protocol header's wait or a TLS handshake that outlasted the listener's limit; the timer's thread.
     * @param now the current {@link System#nanoTime()}
     */
    final void checkDeadlines(long now) {
        ProxyStage header = this.headerPending;
        if (header != null) {
            header.checkDeadline(now);
        }
        TlsStage stage = this.handshaking;
        if (stage != null) {
            stage.checkDeadline(now);
        }
    }

    @Override
    public String toString() {
        SocketAddress remote = this.remoteAddress;
        if (this.listener.isClient()) {
            return "connection " + this.id + " of client '" + this.listener.name() + "'" + ((remote != null) ? " to " + remote : "");
        }
        return "connection " + this.id + " of listener '" + this.listener.name() + "'" + ((remote != null) ? " from " + remote : "");
    }
}
