package dev.sockstate.server.engine;

import dev.sockstate.port.NativeIoException;
import dev.sockstate.server.Connection;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLSession;

/**
 * What a handler sees of an accepted TCP connection beside its traffic: its number, its listener,
 * its addresses (asked of the socket once, then kept), its TLS session and the state a handler
 * keeps on it. The traffic, the turn and the close are {@link TcpConnection}'s.
 */
abstract class AcceptedConnection extends SocketTurn implements Connection {

    /** The listener that accepted it. */
    final Listener listener;

    private final long id;

    private volatile Map<String, Object> attributes;

    private volatile Object attachment;

    private volatile InetSocketAddress remoteAddress;

    private volatile InetSocketAddress localAddress;

    /** The TLS session once the handshake succeeded. */
    private volatile SSLSession tlsSession;

    AcceptedConnection(Listener listener, long handle) {
        super(listener.group.nextPort(), listener.sockets, listener.table, handle, listener.settings.trigger(), listener.observer,
                true, listener.drainsAfterEnable);
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
        return this.listener.name();
    }

    @Override
    public InetSocketAddress localAddress() {
        InetSocketAddress address = this.localAddress;
        return (address != null) ? address : (this.localAddress = address(true));
    }

    @Override
    public InetSocketAddress remoteAddress() {
        InetSocketAddress address = this.remoteAddress;
        return (address != null) ? address : (this.remoteAddress = address(false));
    }

    private InetSocketAddress address(boolean local) {
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
    public SSLSession tlsSession() {
        return this.tlsSession;
    }

    /** @param session the TLS session, once the handshake succeeded */
    final void tlsSession(SSLSession session) {
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
    public String toString() {
        InetSocketAddress remote = this.remoteAddress;
        return "connection " + this.id + " of listener '" + this.listener.name() + "'" + ((remote != null) ? " from " + remote : "");
    }
}
