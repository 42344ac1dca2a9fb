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
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A listener: the {@link ConnectionProfile} its connections share, plus what it binds (its listening
 * sockets or its UDP socket, and a Unix domain socket's file) and what it reports as a whole (its
 * counts, registrations, pending bytes, its description).
 */
final class Listener implements ServerObserver.ActiveCounts {

    /** What its connections share. */
    final ConnectionProfile profile;

    /** Its listening TCP sockets or its UDP socket, its connection counts and reports. */
    final ListenerState state;

    /** The file a Unix domain socket's bind made, {@code null} for an IP listener or before the bind. */
    private volatile @Nullable UnixSocketFile socketFile;

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
    Listener(ListenerSettings settings, WorkerGroup group, NativeSockets sockets, SocketTable table, @Nullable ServerScheduler scheduler,
            AtomicLong connectionIds, ServerObserver observer, ChangeRules changeRules) {
        ListenerObserver own = observer.listener(settings.name(), settings.protocol(), this);
        this.state = new ListenerState("Listener '" + settings.name() + "'", settings.maxConnections(), own);
        this.profile = new ConnectionProfile(settings, settings.connection().tls(), null, own, this.state, group, sockets, table, scheduler, connectionIds,
                changeRules);
    }

    @Override
    public int connections() {
        return this.state.connections();
    }
    @Override
    public int registrations() {
        return this.state.connections() + this.state.registered();
    }

    /** Added up over the listener's connections when asked (a metrics scrape), never on the hot path. */
    @Override
    public long pendingWriteBytes() {
        return TcpConnection.queuedBytesOf(this.profile);
    }

    @Override
    public long unfinishedFrameBytes() {
        return this.profile.route.unfinishedFrameBytes();
    }

    @Override
    public long pooledBufferBytes() {
        return this.profile.pooledBufferBytes();
    }

    @Override
    public long nativeTlsEngines() {
        return this.profile.nativeTlsEngines();
    }

    /** @return the listener's name */
    String name() {
        return this.profile.name();
    }

    /** @return the listener's settings, as configured */
    ListenerSettings settings() {
        return this.profile.settings;
    }

    /** @return how messages name it: {@code Listener 'echo'} */
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
    void closed(long deadline) {
        this.profile.awaitLingeringCloses(deadline);
        UnixSocketFile file = this.socketFile;
        if (file != null) {
            file.remove(name());
        }
        this.profile.observer.closed();
    }

    /** @return the sockets the listener registered: its UDP socket, or its listening TCP sockets; none before it bound */
    List<SocketTurn> boundSockets() {
        return this.state.boundSockets();
    }

    /** @return how many sockets the listener registered: one, or one per worker when it accepts per worker */
    int ownSockets() {
        return this.state.sockets();
    }

    /** @return where the listener's sockets are bound, {@code null} before */
    @Nullable SocketAddress boundAddress() {
        return this.state.boundAddress();
    }

    /** @return the listener as seen from outside */
    BoundListener describe() {
        return this.state.describe(this.profile.settings, this.profile.trigger, registrations(), this.profile.shaping.shaping());
    }
}
