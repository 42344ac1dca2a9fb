package dev.sockstate.server.engine;

import dev.sockstate.port.NativeSockets;
import dev.sockstate.server.BoundListener;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.engine.turn.ChangeRules;
import dev.sockstate.server.engine.turn.ServerScheduler;
import dev.sockstate.server.engine.turn.SocketTable;
import dev.sockstate.server.engine.turn.SocketTurn;
import dev.sockstate.server.engine.turn.WorkerGroup;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.tls.Tls;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * A listener: the {@link ConnectionProfile} its connections share, plus what it binds (its listening
 * sockets or its UDP socket, and a Unix domain socket's file) and what it reports as a whole (its
 * counts, registrations, pending bytes, its description). A client's connections have a listener of
 * the client's own that binds nothing.
 */
final class Listener implements ServerObserver.ActiveCounts {

    /** What its connections share. */
    final ConnectionProfile profile;

    /** Its listening TCP sockets or its UDP socket, its connection counts and reports. */
    final ListenerState state;

    /** The file a Unix domain socket's bind made, {@code null} for an IP listener or before the bind. */
    private volatile UnixSocketFile socketFile;

    /** What its connections' client has beside the settings, when they are a client's; {@code null} for a listener. */
    private final ClientPart client;

    /**
     * @param settings the listener's settings
     * @param group its worker group
     * @param sockets the backend's sockets
     * @param table the server's sockets
     * @param scheduler the server's timer thread
     * @param connectionIds the server's connection numbers
     * @param observer where the server reports, asked once for this listener's observer
     * @param changeRules how the backend takes registration changes
     */
    Listener(ListenerSettings settings, WorkerGroup group, NativeSockets sockets, SocketTable table, ServerScheduler scheduler,
            AtomicLong connectionIds, ServerObserver observer, ChangeRules changeRules) {
        this(settings, null, group, sockets, table, scheduler, connectionIds, observer, changeRules);
    }

    /**
     * @param settings how the connections are served
     * @param client for a client's connections (see {@link Client}), its requests owed replies, its
     * TLS and its replies; the settings are then made of its {@link dev.sockstate.server.client.ClientSettings},
     * nothing is bound, and the observer is asked for the client's; {@code null} for a listener
     */
    Listener(ListenerSettings settings, ClientPart client, WorkerGroup group, NativeSockets sockets, SocketTable table,
            ServerScheduler scheduler, AtomicLong connectionIds, ServerObserver observer, ChangeRules changeRules) {
        this.client = client;
        ListenerObserver own = (client != null) ? observer.client(settings.name(), this) : observer.listener(settings.name(), settings.protocol(), this);
        this.state = new ListenerState((client != null) ? client.label() : "Listener '" + settings.name() + "'", settings.maxConnections(), own);
        this.profile = new ConnectionProfile(settings, (client != null) ? client.tls() : settings.tls(), (client != null) ? client.replies() : null,
                own, this.state, group, sockets, table, scheduler, connectionIds, changeRules);
    }

    /**
     * A client's connections count once open, added up when asked (a metrics scrape, the endpoint):
     * a connect under way is no connection, so a client whose backend is down shows none.
     */
    @Override
    public int connections() {
        if (this.client == null) {
            return this.state.connections();
        }
        int open = 0;
        for (SocketTurn socket : this.profile.allSockets()) {
            if (socket instanceof ClientConnection connection && connection.profile == this.profile && connection.link.opened()) {
                open++;
            }
        }
        return open;
    }

    @Override
    public int registrations() {
        return this.state.connections() + this.state.registered();
    }

    /** Added up over the listener's connections when asked (a metrics scrape), never on the hot path. */
    @Override
    public long pendingWriteBytes() {
        long pending = 0;
        for (SocketTurn socket : this.profile.allSockets()) {
            if (socket instanceof TcpConnection connection && connection.profile == this.profile) {
                pending += connection.queuedBytes();
            }
        }
        return pending;
    }

    /**
     * What the connection side of a client has beside its listener settings.
     * @param label how messages name the client: {@code Client 'redis'}
     * @param requests reads its requests owed replies, for a gauge
     * @param tls its TLS, a client's; {@code null} for plaintext
     * @param replies what its route does with a frame before its handler is called
     */
    record ClientPart(String label, IntSupplier requests, Tls tls, HandlerCalls.Replies replies) {
    }

    @Override
    public int pendingRequests() {
        return (this.client != null) ? this.client.requests().getAsInt() : 0;
    }

    /** @return the listener's name */
    String name() {
        return this.profile.name();
    }

    /** @return the listener's settings, as configured */
    ListenerSettings settings() {
        return this.profile.settings;
    }

    /** @return how messages name it: {@code Listener 'echo'}, {@code Client 'redis'} */
    String label() {
        return this.state.label();
    }

    /** @param sockets its registered sockets (its UDP socket, or its listening TCP sockets) @param address where */
    void bound(List<SocketTurn> sockets, SocketAddress address) {
        this.state.bound(sockets, address);
    }

    /** The server stops: from now on the listener's sockets closing is expected. */
    void stopping() {
        this.state.stopping();
    }

    /** @param file the file a Unix domain socket's bind made, removed when the server closes */
    void socketFile(UnixSocketFile file) {
        this.socketFile = file;
    }

    /** The server closed: the file its Unix domain socket's bind made is removed, the listener's observer is told. */
    void closed() {
        UnixSocketFile file = this.socketFile;
        if (file != null) {
            file.remove(name());
        }
        this.profile.observer.closed();
    }

    /** @return how many sockets the listener registered: one, or one per worker when it accepts per worker */
    int ownSockets() {
        return this.state.sockets();
    }

    /** @return where the listener's sockets are bound, {@code null} before */
    SocketAddress boundAddress() {
        return this.state.boundAddress();
    }

    /** @return the listener as seen from outside */
    BoundListener describe() {
        return this.state.describe(this.profile.settings, this.profile.trigger, registrations());
    }
}
