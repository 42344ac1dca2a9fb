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
import dev.sockstate.server.engine.turn.Worker;
import dev.sockstate.server.proxy.ProxyHeader;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * a TLS handshake's end). What of it a plain idle connection never needs waits in its
 * {@link ConnectionExtras}, made on first use. The traffic, the turn and the close itself are
 * {@link TcpConnection}'s.
 */
abstract class AcceptedConnection extends SocketTurn implements Connection, TlsHost, ProxyHost {

    /** The listener that accepted it. */
    final Listener listener;

    private final long id;

    /** The handler's attachment; any thread. */
    private volatile Object attachment;

    /** When traffic last passed ({@link System#nanoTime()}), kept only with an idle timeout. */
    private volatile long lastActivity;

    /**
     * What a plain idle connection does not need (its addresses once asked, its TLS session, its PROXY
     * protocol header, its client, ...): {@code null} until first needed ({@link #extras()}), made at
     * once for a client's connection; once set, never replaced.
     */
    private volatile ConnectionExtras extras;

    private static final VarHandle EXTRAS;

    static {
        try {
            EXTRAS = MethodHandles.lookup().findVarHandle(AcceptedConnection.class, "extras", ConnectionExtras.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** @param link a client's connection's tie to its client; {@code null} for an accepted connection */
    AcceptedConnection(Listener listener, SocketHome home, long handle, ClientLink link) {
        super(home, handle, listener.trigger(), true);
        this.listener = listener;
        this.id = listener.nextConnectionId();
        this.extras = (link != null) ? new ConnectionExtras(link) : null;
    }

    /**
     * @return the connection's seldom needed state, made now if it was not: the first thread to store
     * it wins, and every thread gets that one; any thread
     */
    final ConnectionExtras extras() {
        ConnectionExtras current = this.extras;
        if (current != null) {
            return current;
        }
        ConnectionExtras made = new ConnectionExtras(null);
        ConnectionExtras witness = (ConnectionExtras) EXTRAS.compareAndExchange(this, null, made);
        return (witness != null) ? witness : made;
    }

    /** @return the connection's seldom needed state, {@code null} while none was needed; any thread */
    final ConnectionExtras extrasIfMade() {
        return this.extras;
    }

    /**
     * @return whether the calling thread is the only one that runs the connection's turns: the only
     * worker of its port, once that worker has had a turn of it (the worker of another port that
     * accepted it opens it), on a listener without a handler executor (whose calls would run them on
     * the executor's threads); what it alone changes needs no atomic instruction
     */
    final boolean onItsOnlyWorker() {
        return Worker.runsAlone(this.port) && isHomed() && !this.listener.hasExecutor();
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
        ConnectionExtras extras = extras();
        SocketAddress address = extras.localAddress;
        return (address != null) ? address : (extras.localAddress = address(true));
    }

    @Override
    public SocketAddress remoteAddress() {
        ConnectionExtras extras = extras();
        SocketAddress address = extras.remoteAddress;
        return (address != null) ? address : (extras.remoteAddress = address(false));
    }

    /** Read as the connection opens, by its owner: what the system recorded when the peer connected. */
    @Override
    public PeerCredentials peerCredentials() {
        ConnectionExtras extras = this.extras;
        return (extras != null) ? extras.peerCredentials : null;
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
            if (ids != null) {
                extras().peerCredentials = new PeerCredentials(ids[0], ids[1], ids[2]);
            }
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
        ProxyHeader header = proxyHeader();
        return (header != null) ? header.proxyAddress() : remoteAddress();
    }

    @Override
    public final void proxied(ProxyHeader header) {
        // On an IP listener only an IP client can be the peer (a handler may take an InetSocketAddress);
        // on a Unix domain socket, a relayed client of any family.
        ConnectionExtras extras = extras();
        if (header.relaysClient() && (header.source() instanceof InetSocketAddress || !(header.proxyAddress() instanceof InetSocketAddress))) {
            extras.remoteAddress = header.source();
        }
        extras.proxyHeader = header;
    }

    @Override
    public final ProxyHeader proxyHeader() {
        ConnectionExtras extras = this.extras;
        return (extras != null) ? extras.proxyHeader : null;
    }

    @Override
    public final void headerPending(ProxyStage stage) {
        // (Nothing waits to be cleared while nothing was made.)
        if (stage != null || this.extras != null) {
            extras().headerPending = stage;
        }
    }

    @Override
    public final void headerRefused(String message) {
        this.listener.proxyHeaderRefused(message);
    }

    @Override
    public SSLSession tlsSession() {
        ConnectionExtras extras = this.extras;
        return (extras != null) ? extras.tlsSession : null;
    }

    @Override
    public final void handshakeSucceeded(SSLSession session) {
        extras().tlsSession = session;
    }

    @Override
    public Map<String, Object> attributes() {
        ConnectionExtras extras = extras();
        Map<String, Object> map = extras.attributes;
        if (map == null) {
            synchronized (extras) {
                map = extras.attributes;
                if (map == null) {
                    map = new ConcurrentHashMap<>();
                    extras.attributes = map;
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
        // (Nothing waits to be cleared while nothing was made.)
        if (stage != null || this.extras != null) {
            extras().handshaking = stage;
        }
    }

    /**
     * Ends a PROXY protocol header's wait or a TLS handshake that outlasted the listener's limit; the timer's thread.
     * @param now the current {@link System#nanoTime()}
     */
    final void checkDeadlines(long now) {
        ConnectionExtras extras = this.extras;
        if (extras == null) {
            return;
        }
        ProxyStage header = extras.headerPending;
        if (header != null) {
            header.checkDeadline(now);
        }
        TlsStage stage = extras.handshaking;
        if (stage != null) {
            stage.checkDeadline(now);
        }
    }

    @Override
    public String toString() {
        ConnectionExtras extras = this.extras;
        SocketAddress remote = (extras != null) ? extras.remoteAddress : null;
        if (this.listener.isClient()) {
            return "connection " + this.id + " of client '" + this.listener.name() + "'" + ((remote != null) ? " to " + remote : "");
        }
        return "connection " + this.id + " of listener '" + this.listener.name() + "'" + ((remote != null) ? " from " + remote : "");
    }
}
