package dev.sockstate.server.engine;

import dev.sockstate.port.Events;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.Connection;
import dev.sockstate.server.InvalidMessageException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Stage;
import dev.sockstate.server.engine.proxy.ProxyStage;
import dev.sockstate.server.engine.proxy.ProxySupport;
import dev.sockstate.server.engine.tls.TlsStage;
import dev.sockstate.server.engine.tls.TlsSupport;
import dev.sockstate.server.engine.turn.ChangeRules;
import dev.sockstate.server.engine.turn.Runner;
import dev.sockstate.server.engine.turn.ServerScheduler;
import dev.sockstate.server.engine.turn.SocketHome;
import dev.sockstate.server.engine.turn.SocketTable;
import dev.sockstate.server.engine.turn.SocketTurn;
import dev.sockstate.server.engine.turn.WorkerGroup;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.tls.Tls;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What the connections of one listener or one client share: their settings, name, observer, counts
 * and reports, route, worker group and ports, timer, handler executor and messages. A connection holds
 * its profile and uses these parts directly; a {@link Listener} is a profile plus its binding and
 * admission, a client a profile plus its pool and connector. Nothing in it names a connection's class.
 */
final class ConnectionProfile {

    /** The settings of the connections: a listener's, or those a client's make as a listener's. */
    final ListenerSettings settings;

    /** Whether the connections are a client's, which the server opens: for the names they go by only. */
    final boolean client;

    /** The observer of the listener or client. */
    final ListenerObserver observer;

    /** Its counts, its failures' and warnings' reports. */
    final ListenerState state;

    /** The way between each connection's socket and the handler. */
    final @Nullable Route route;

    /** What the TLS stages of its connections share, {@code null} without TLS. */
    private final @Nullable TlsSupport tlsSupport;

    /** How the sockets are registered: the trigger set, or the worker group's default. */
    final Trigger trigger;

    /** Where the handler's calls run, {@code null} on the workers. */
    final @Nullable Executor executor;

    /** The idle timeout in nanoseconds, 0 for none. */
    final long idleTimeoutNanos;

    /**
     * Whether the connections keep the time of their last traffic: with an idle timeout, or a client's
     * heartbeat ({@link #trackActivity}); set before any connection is made.
     */
    boolean tracksActivity;

    private final WorkerGroup group;

    private final NativeSockets sockets;

    private final SocketTable table;

    private final @Nullable ServerScheduler scheduler;

    private final ChangeRules changeRules;

    private final AtomicLong connectionIds;

    private final Messages messages;

    /**
     * The listener's admission as it runs, {@code null} without rules (and for a client); replaced whole
     * when the rules change while the listener runs.
     */
    volatile @Nullable AdmissionControl admission;

    /** The traffic shaping of the connections as it runs. */
    final ShapingControl shaping;

    /** Closes the sockets off the workers where a positive SO_LINGER makes a close wait, {@code null} elsewhere. */
    final @Nullable LingeringCloser lingeringCloser;

    /** Whether SO_LINGER is zero: every close resets its connection, as asked, and none waits for the peer's FIN. */
    final boolean resetsAtClose;

    /**
     * The admission of the client a PROXY protocol header named, on a connection from a trusted sender:
     * counted, logged and refused here, given back as the connection finishes.
     * @return whether it is admitted
     */
    private boolean admitRelayed(Connection connection, InetAddress client) {
        AdmissionControl admission = this.admission;
        if (admission == null || !admission.rules().checksSources()) {
            return true;
        }
        AdmissionControl.Verdict verdict = admission.admitSource(client, System.nanoTime());
        if (verdict.refusal() != null) {
            this.state.rejected(verdict.refusal(), client);
            return false;
        }
        if (verdict.source() != null) {
            admission.hold(connection, verdict.source());
        }
        return true;
    }

    /**
     * Waits for the closes handed to the {@link #lingeringCloser}, as a stop ends.
     * @param deadline when to stop waiting, in {@link System#nanoTime()}
     */
    void awaitLingeringCloses(long deadline) {
        if (this.lingeringCloser != null) {
            this.lingeringCloser.awaitClosed(deadline);
        }
    }

    /**
     * @param settings how the connections are served
     * @param tls how they are secured, {@code null} for plaintext
     * @param replies a client's replies, taken before its handler is called; {@code null} for a listener
     * @param observer the listener's or client's observer
     * @param reports its counts and reports
     * @param group its worker group
     * @param sockets the backend's sockets
     * @param table the server's sockets
     * @param scheduler the server's timer, {@code null} for none (an embedded connection)
     * @param connectionIds the server's connection numbers
     * @param changeRules how the backend takes registration changes
     */
    ConnectionProfile(ListenerSettings settings, @Nullable Tls tls, HandlerCalls.@Nullable Replies replies, ListenerObserver observer,
            ListenerState reports, WorkerGroup group, NativeSockets sockets, SocketTable table, @Nullable ServerScheduler scheduler,
            AtomicLong connectionIds, ChangeRules changeRules) {
        this.settings = settings;
        this.client = replies != null;
        this.observer = observer;
        this.state = reports;
        this.trigger = settings.triggerOn(group.settings);
        this.executor = settings.connection().handlerExecutor();
        this.idleTimeoutNanos = (settings.connection().idleTimeout() != null) ? settings.connection().idleTimeout().toNanos() : 0;
        this.tracksActivity = this.idleTimeoutNanos > 0;
        this.group = group;
        this.sockets = sockets;
        this.table = table;
        this.scheduler = scheduler;
        this.connectionIds = connectionIds;
        this.changeRules = changeRules;
        this.messages = new Messages(settings, reports.label());
        this.admission = (replies == null && !settings.admission().isEmpty()) ? new AdmissionControl(settings.admission()) : null;
        this.shaping = new ShapingControl(settings.connection().shaping(), observer, scheduler);
        Duration linger = settings.connection().socketOptions().linger();
        this.lingeringCloser = LingeringCloser.forLinger(linger, sockets, "sockstate-linger-" + settings.name(), reports.label());
        this.resetsAtClose = linger != null && linger.isZero();
        this.tlsSupport = (tls != null && settings.protocol() == Protocol.TCP)
                ? new TlsSupport(tls, observer, group.settings.readBufferSize()) : null;
        if (settings.protocol() != Protocol.TCP) {
            // A UDP listener's datagrams take no route.
            this.route = null;
            return;
        }
        // The PROXY protocol's and TLS's stages are ordinary stages, made first.
        List<Function<RouteHost, ? extends Stage>> makers = new ArrayList<>();
        if (settings.proxyProtocol() != null) {
            ProxySupport proxy = new ProxySupport(settings.proxyProtocol(), observer, reports::proxyHeaderRefused,
                    (replies == null) ? this::admitRelayed : null);
            makers.add((connection) -> new ProxyStage(proxy));
        }
        if (this.tlsSupport != null) {
            TlsSupport secured = this.tlsSupport;
            makers.add((connection) -> new TlsStage(secured, connection.connectedHost(), connection.connectedPort()));
        }
        int builtIn = makers.size();
        for (Supplier<? extends Stage> maker : settings.connection().stages()) {
            makers.add((connection) -> maker.get());
        }
        HandlerCalls handler = new HandlerCalls(reports, observer, settings.connectionHandler(), replies);
        this.route = new Route(handler, (settings.connection().framing() != null) ? new Framer(settings.connection().framing(), handler, reports, this.executor == null) : null,
                makers, builtIn, reports);
    }

    /** @return whether its connections' TLS starts on their handler's request (STARTTLS) */
    boolean startsTlsOnRequest() {
        return this.tlsSupport != null && this.tlsSupport.startsOnRequest();
    }

    /** The connections keep the time of their last traffic (a client's heartbeat watches it); before any is made. */
    void trackActivity() {
        this.tracksActivity = true;
    }

    /** @return native TLS engines its connections hold now */
    long nativeTlsEngines() {
        return (this.tlsSupport != null) ? this.tlsSupport.liveNativeEngines() : 0;
    }

    /** @return bytes of the direct buffers its TLS and framing made to lend the connections' turns, lent now or idle */
    long pooledBufferBytes() {
        return ((this.route != null) ? this.route.pooledBufferBytes() : 0) + ((this.tlsSupport != null) ? this.tlsSupport.pooledBufferBytes() : 0);
    }

    /** @return the listener's or client's name */
    String name() {
        return this.settings.name();
    }

    /** @return a new connection's number, unique in the server */
    long nextConnectionId() {
        return this.connectionIds.incrementAndGet();
    }

    /** @return where a new socket is served: the next port of the group, its table, observer and rules */
    SocketHome home() {
        return home(this.group.nextPort());
    }

    /** @return where a new socket is served on the port given */
    SocketHome home(NotificationPort port) {
        return new SocketHome(port, this.sockets, this.table, this.observer, this.changeRules);
    }

    /**
     * @param preferred a port, {@code null} for none
     * @return where a new socket is served: on that port when it is one of the group's, else on the next port
     */
    SocketHome homeNear(@Nullable NotificationPort preferred) {
        return home((preferred != null && this.group.hasPort(preferred)) ? preferred : this.group.nextPort());
    }

    /** @return where a socket is served on the group's port of that index, from 0 */
    SocketHome homeOn(int portIndex) {
        return home(this.group.port(portIndex));
    }

    /** @return the ports of the worker group: one, or one per worker */
    int ports() {
        return this.group.portCount();
    }

    /** @return the events the sockets are registered for while reading */
    int events() {
        return this.settings.events();
    }

    /** @return how much a connection may queue before its reads pause */
    long maxPendingWriteBytes() {
        return this.settings.connection().maxPendingWriteBytes();
    }

    /** @return how much a connection may queue before it is aborted, 0 for no limit */
    long abortPendingWriteBytes() {
        return this.settings.connection().abortPendingWriteBytes();
    }

    /** @return the room for each datagram a UDP listener receives: its own setting, else as {@link #heapReadRoom()} */
    int datagramRoom() {
        int own = this.settings.maxDatagramSize();
        return (own > 0) ? own : heapReadRoom();
    }

    /** @return the most a heap read takes on a thread lent no native memory: the group's read buffer, at most 64 KiB */
    int heapReadRoom() {
        return Math.min(this.group.settings.readBufferSize(), 64 * 1024);
    }

    /**
     * @param events the notification's events
     * @return whether a read shorter than its buffer drained the socket: in the exclusive edge mode on a
     * backend that raises an edge for every arrival, for a registration that hears of hang-ups and a
     * notification without one (a FIN may come with the data)
     */
    boolean shortReadDrains(int events) {
        return shortReadsMayDrain() && (events & Events.HANGUP) == 0;
    }

    /**
     * @return whether a short read may drain the socket: in the exclusive edge mode on a backend that
     * raises an edge for every arrival, for a registration that hears of hang-ups
     */
    boolean shortReadsMayDrain() {
        return this.settings.exclusiveEdge() && this.changeRules.edgeOnEveryArrival() && (this.settings.events() & Events.HANGUP) != 0;
    }

    /** @param task run with memory lent by the worker group, on the calling thread */
    void lend(Consumer<Runner> task) {
        this.group.lend(task);
    }

    /**
     * @param task what the server's timer runs
     * @param delayMillis after how long
     * @return whether the timer took it: false without one (an embedded connection) or once the server stopped
     */
    boolean schedule(Runnable task, long delayMillis) {
        return scheduleCancellable(task, delayMillis) != null;
    }

    /**
     * @param task what the server's timer runs
     * @param delayMillis after how long
     * @return the task's future, to cancel it; {@code null} without a timer (an embedded connection) or once the server stopped
     */
    @Nullable ScheduledFuture<?> scheduleCancellable(Runnable task, long delayMillis) {
        if (this.scheduler == null) {
            return null;
        }
        try {
            return this.scheduler.schedule(task, delayMillis);
        }
        catch (RejectedExecutionException ex) {
            return null;
        }
    }

    /** @param ending what follows a connection's end for its handler: on the executor, or here without one (or when it refuses) */
    void afterEnd(Runnable ending) {
        if (this.executor != null) {
            try {
                this.executor.execute(ending);
                return;
            }
            catch (RejectedExecutionException ex) {
                // Shut down, say: run here.
            }
        }
        ending.run();
    }

    /** @param message a typed message: encoded as the handlers send it */
    ByteBuffer writeMessage(Object message) {
        return this.messages.write(message);
    }

    /** @return the message read as the type, as the handlers read them */
    <T> T readMessage(ByteBuffer message, Class<T> type) throws InvalidMessageException {
        return this.messages.read(message, type);
    }

    /**
     * Enters a socket into the server's table.
     * @return false when the table is full
     */
    boolean enter(SocketTurn socket) {
        return this.table.add(socket);
    }

    /** @param socket a new socket, owned by the calling thread: let go, which arms it */
    void letGo(SocketTurn socket) {
        this.group.letGo(socket);
    }

    /** @return the sockets of the server, for a count added up when asked (never on the hot path) */
    Iterable<SocketTurn> allSockets() {
        return this.table.snapshot();
    }
}
