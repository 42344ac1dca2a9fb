package dev.sockstate.server.engine;

import dev.sockstate.port.Events;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.BoundListener;
import dev.sockstate.server.InvalidMessageException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Stage;
import dev.sockstate.server.engine.HandlerCalls.Callback;
import dev.sockstate.server.engine.proxy.ProxySupport;
import dev.sockstate.server.engine.tls.TlsSupport;
import dev.sockstate.server.engine.turn.ChangeRules;
import dev.sockstate.server.engine.turn.RunClock;
import dev.sockstate.server.engine.turn.Runner;
import dev.sockstate.server.engine.turn.ServerScheduler;
import dev.sockstate.server.engine.turn.SocketHome;
import dev.sockstate.server.engine.turn.SocketTable;
import dev.sockstate.server.engine.turn.SocketTurn;
import dev.sockstate.server.engine.turn.WorkerGroup;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.tls.Tls;
import java.lang.System.Logger.Level;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * What one listener's sockets share at run time: settings, worker group, handler calls, observer and
 * counts. Its collaborators are its own: a socket asks the listener to do a thing (call the handler,
 * frame bytes, hand a turn to the executor, schedule a check) and never reaches through it for the
 * part that does it (LayeringTest holds it to that).
 */
final class Listener implements ServerObserver.ActiveCounts {

    private static final System.Logger logger = System.getLogger(Listener.class.getName());

    private final ListenerSettings settings;

    private final WorkerGroup group;

    private final NativeSockets sockets;

    private final SocketTable table;

    private final ServerScheduler scheduler;

    private final ListenerObserver observer;

    /** The framing of its connections, or {@code null} for raw reads. */
    private final Framer framer;

    /** The file a Unix domain socket's bind made, {@code null} for an IP listener or before the bind. */
    private volatile UnixSocketFile socketFile;

    /** What its connections' TLS stages share, or {@code null} for plaintext. */
    private final TlsSupport tls;

    /** What its connections' PROXY protocol stages share, or {@code null} without the protocol. */
    private final ProxySupport proxy;

    /** Makers of each connection's own stages, in inbound order (TLS's, if any, comes before them). */
    private final List<Supplier<? extends Stage>> stageMakers;

    /** How its handlers' messages are read and sent. */
    private final Messages messages;

    /** Calls the listener's connection handler, timed and guarded. */
    private final HandlerCalls handler;

    /** Where the connections' handler calls run, {@code null} on the workers. */
    private final HandlerExecution execution;

    private final long idleTimeoutNanos;

    /** How the backend takes registration changes: whether it raises an edge per arrival, and batches changes with dequeues. */
    private final ChangeRules changeRules;

    private final AtomicLong connectionIds;

    /** Its listening TCP sockets or its UDP socket, and its connection counts. */
    private final ListenerState state;

    /** How the listener's sockets are registered: the trigger set, or its worker group's default. */
    private final Trigger trigger;

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
     * @param client for a client's connections (see {@link Client}), its requests owed replies and its
     * TLS; the settings are then made of its {@link dev.sockstate.server.client.ClientSettings}, nothing
     * is bound, and the observer is asked for the client's; {@code null} for a listener
     */
    Listener(ListenerSettings settings, ClientPart client, WorkerGroup group, NativeSockets sockets, SocketTable table,
            ServerScheduler scheduler, AtomicLong connectionIds, ServerObserver observer, ChangeRules changeRules) {
        this.settings = settings;
        this.client = client;
        this.trigger = settings.triggerOn(group.settings);
        this.changeRules = changeRules;
        this.group = group;
        this.sockets = sockets;
        this.table = table;
        this.scheduler = scheduler;
        this.connectionIds = connectionIds;
        this.idleTimeoutNanos = (settings.idleTimeout() != null) ? settings.idleTimeout().toNanos() : 0;
        this.observer = (client != null) ? observer.client(settings.name(), this) : observer.listener(settings.name(), settings.protocol(), this);
        this.state = new ListenerState(settings.name(), settings.maxConnections(), this.observer);
        this.handler = (settings.protocol() == Protocol.TCP) ? new HandlerCalls(this, this.observer, settings.connectionHandler()) : null;
        this.execution = (settings.handlerExecutor() != null) ? new HandlerExecution(this, settings.handlerExecutor()) : null;
        this.framer = (settings.framing() != null) ? new Framer(this, settings.framing()) : null;
        Tls tls = (client != null) ? client.tls() : settings.tls();
        this.tls = (tls != null) ? new TlsSupport(tls, this.observer) : null;
        this.proxy = (settings.proxyProtocol() != null) ? new ProxySupport(settings.proxyProtocol(), this.observer) : null;
        this.stageMakers = settings.stages();
        this.messages = new Messages(settings, label());
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
        for (SocketTurn socket : this.table.snapshot()) {
            if (socket instanceof TcpConnection connection && connection.listener == this && connection.link().opened()) {
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
        for (SocketTurn socket : this.table.snapshot()) {
            if (socket instanceof TcpConnection connection && connection.listener == this) {
                pending += connection.queuedBytes();
            }
        }
        return pending;
    }

    /**
     * What the connection side of a client has beside its listener settings.
     * @param requests reads its requests owed replies, for a gauge
     * @param tls its TLS, a client's; {@code null} for plaintext
     */
    record ClientPart(IntSupplier requests, Tls tls) {
    }

    @Override
    public int pendingRequests() {
        return (this.client != null) ? this.client.requests().getAsInt() : 0;
    }

    /** @return the listener's name */
    String name() {
        return this.settings.name();
    }

    /** @return whether its connections are a client's, opened by the server */
    boolean isClient() {
        return this.client != null;
    }

    /** @return how messages name it: {@code Listener 'echo'}, {@code Client 'redis'} */
    String label() {
        return ((this.client != null) ? "Client '" : "Listener '") + this.settings.name() + "'";
    }

    /** @param outcome how a client's connect ended: counted ({@link ListenerObserver#connect}) */
    void connectEnded(String outcome) {
        this.observer.connect(outcome);
    }

    /** A client's request ended: counted and timed ({@link ListenerObserver#request}). */
    void requestEnded(String outcome, long nanos) {
        this.observer.request(outcome, nanos);
    }

    /** @return what the requests answered in a run of a client's connection are counted together for, or {@code null} */
    Object summingRequests() {
        return (this.client != null && this.observer.sumsRequestTimes()) ? this : null;
    }

    /** @param count requests answered in one run, counted together, @param nanos their times added up */
    void requestsEnded(int count, long nanos) {
        this.observer.requests(count, nanos);
    }

    /** @return a new connection's number, unique in the server */
    long nextConnectionId() {
        return this.connectionIds.incrementAndGet();
    }

    /**
     * Takes a place for a new connection, atomically, since several listening sockets may accept at
     * once; {@link #connectionFinished()} gives it back.
     * @return false, with no place taken, when another connection would exceed the maximum
     */
    boolean admit() {
        return this.state.admit();
    }

    /** A connection admitted was accepted and entered the table: counted. */
    void connectionAccepted() {
        this.state.accepted();
    }

    /** A connection was closed at once because of the maximum; counted before the close, so a peer that sees it sees the count. */
    void connectionRejected() {
        this.state.rejected();
    }

    /** An admitted connection is finished, or was not accepted after all: its place is given back. */
    void connectionFinished() {
        this.state.connectionFinished();
    }

    /** @param sockets its registered sockets (its UDP socket, or its listening TCP sockets) @param address where */
    void bound(List<SocketTurn> sockets, SocketAddress address) {
        this.state.bound(sockets, address);
    }

    /** The server stops: from now on the listener's sockets closing is expected. */
    void stopping() {
        this.state.stopping();
    }

    /** @param socket one of its own, finished: outside a stop after a failure ({@link ListenerState#finished}) */
    void socketFinished(SocketTurn socket) {
        this.state.finished(socket);
    }

    /** @return how many sockets the listener registered: one, or one per worker when it accepts per worker */
    int ownSockets() {
        return this.state.sockets();
    }

    /** @return where the listener's sockets are bound, {@code null} before */
    SocketAddress boundAddress() {
        return this.state.boundAddress();
    }

    /**
     * A handler or a stage threw: logged once with the listener's name and counted.
     * @param what the socket it concerned
     * @param consequence what the runtime does about it
     * @param failure what it threw
     */
    void handlerFailed(Object what, String consequence, Throwable failure) {
        this.state.handlerError();
        logger.log(Level.ERROR, "Handler of " + ((this.client != null) ? "client '" : "listener '") + name() + "' failed on " + what + "; " + consequence, failure);
    }

    /** A peer's frame (of {@code what}) did not frame or read as the handler's type: counted, logged at most once a second. */
    void frameRejected(Object what, String consequence, Exception failure) {
        this.state.frameRejected(failure.getMessage() + "; " + consequence + " " + what);
    }

    /** The handler executor refused a task for {@code what}: counted with the handler errors, logged at most once a second. */
    void executorRefused(Object what, String consequence, RuntimeException refusal) {
        this.state.executorRefused("The handler executor of " + ((this.client != null) ? "client '" : "listener '") + name() + "' refused work for " + what + "; " + consequence, refusal);
    }

    /** A handler wrote {@code bytes} after it asked for the connection's FIN: dropped, which the log says. */
    void writeAfterShutdown(Object connection, int bytes) {
        this.state.lateWrite("A write of " + bytes + " bytes to " + connection + " came after shutdownOutput() and was dropped");
    }

    /** @return the listener's settings, as configured */
    ListenerSettings settings() {
        return this.settings;
    }

    /** @return how the listener's sockets are registered: the trigger set, or its worker group's default */
    Trigger trigger() {
        return this.trigger;
    }

    /** @return where a new socket of the listener is served: the next port of its group, its table, observer and rules */
    SocketHome home() {
        return home(this.group.nextPort());
    }

    /** @return where a new socket of the listener is served on the port given */
    SocketHome home(NotificationPort port) {
        return new SocketHome(port, this.sockets, this.table, this.observer, this.changeRules);
    }

    /** @return the ports of the listener's worker group: one, or one per worker */
    int ports() {
        return this.group.portCount();
    }

    /**
     * @param preferred a port, {@code null} for none
     * @return where a new socket is served: on that port when it is one of the group's, else on the next port
     */
    SocketHome homeNear(NotificationPort preferred) {
        return home((preferred != null && this.group.hasPort(preferred)) ? preferred : this.group.nextPort());
    }

    /** @return where a listening socket of the listener is served on the group's port of that index, from 0 */
    SocketHome homeOn(int portIndex) {
        return home(this.group.port(portIndex));
    }

    /** @return the idle timeout in nanoseconds, 0 for none */
    long idleTimeoutNanos() {
        return this.idleTimeoutNanos;
    }

    /** @return how much a connection may queue before its reads pause */
    long maxPendingWriteBytes() {
        return this.settings.maxPendingWriteBytes();
    }

    /** @return how much a connection may queue before it is aborted, 0 for no limit */
    long abortPendingWriteBytes() {
        return this.settings.abortPendingWriteBytes();
    }

    /** @return the events its sockets are registered for while reading */
    int events() {
        return this.settings.events();
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
        return this.settings.exclusiveEdge() && this.changeRules.edgeOnEveryArrival()
                && (this.settings.events() & Events.HANGUP) != 0 && (events & Events.HANGUP) == 0;
    }

    /**
     * Calls the listener's connection handler, timed and guarded ({@link HandlerCalls}).
     * @param callback which of its methods
     * @param connection the connection, owned by the calling thread
     * @param data the bytes, for {@link Callback#DATA}
     * @param error the failure, for {@link Callback#ERROR}
     */
    void call(Callback callback, TcpConnection connection, ByteBuffer data, Throwable error) {
        this.handler.call(callback, connection, data, error);
    }

    /** @return what a run of frames' calls is timed together for ({@link RunClock#startRun}), or {@code null} to time each */
    Object summingCalls() {
        return this.handler.summing();
    }

    /** @param calls handler calls of one read timed together, none failed, @param nanos their time */
    void handledTogether(int calls, long nanos) {
        this.handler.handledTogether(calls, nanos);
    }

    /**
     * @param connection a new connection
     * @return its stages (the PROXY protocol's first, then TLS's, then the listener's own), {@code null}
     * for a listener without
     * @throws RuntimeException what a stage maker threw
     */
    Pipeline newPipeline(TcpConnection connection) {
        return (this.proxy != null || this.tls != null || !this.stageMakers.isEmpty())
                ? new Pipeline(connection, this.handler, this.proxy, this.tls, this.stageMakers) : null;
    }

    /** @param message why a connection's PROXY protocol header was refused (its stage counted it): logged at most once a second */
    void proxyHeaderRefused(String message) {
        this.state.proxyHeaderRefused(message);
    }

    /** @return whether the listener cuts its connections' bytes into frames */
    boolean frames() {
        return this.framer != null;
    }

    /**
     * @param connection the connection, owned by the calling thread
     * @param data bytes that passed the stages: cut into frames for the handler, or handed to it as they are
     */
    void toHandler(TcpConnection connection, ByteBuffer data) {
        if (this.framer != null) {
            this.framer.inbound(connection, data);
        }
        else {
            this.handler.call(Callback.DATA, connection, data, null);
        }
    }

    /**
     * @param connection the connection, owned by the calling thread
     * @param data bytes the handler's side wrote: framed if the listener frames them, then towards the socket
     * @param owned whether the buffer is a copy the write queue may keep
     */
    void fromHandler(TcpConnection connection, ByteBuffer data, boolean owned) {
        if (this.framer != null) {
            this.framer.outbound(connection, data);
        }
        else {
            connection.toSocket(data, owned);
        }
    }

    /** @return whether what handlers write goes on as it is: no framing, or one that does not encode */
    boolean writesAsIs() {
        return this.framer == null || this.framer.writesAsIs();
    }

    /** @return the framed bytes a connection gathered and did not send yet; the owner */
    int gatheredBytes(TcpConnection connection) {
        return (this.framer != null) ? this.framer.gatheredBytes(connection) : 0;
    }

    /** Hands the connection's handler the frames its framing held back while its queue was over its limit; the owner. */
    void releaseHeldFrames(TcpConnection connection) {
        if (this.framer != null) {
            this.framer.releaseHeld(connection);
        }
    }

    /** The connection is finished: what the framing kept for it is dropped. */
    void dropFraming(TcpConnection connection) {
        if (this.framer != null) {
            this.framer.drop(connection);
        }
    }

    /** @return whether the handler runs on an executor of its own, not on the workers */
    boolean hasExecutor() {
        return this.execution != null;
    }

    /**
     * Hands the rest of a connection's turn to the handler executor ({@link HandlerExecution#handOff}).
     * @return whether the executor took it; false without an executor
     */
    boolean handOff(TcpConnection connection, int events, boolean opening) {
        return this.execution != null && this.execution.handOff(connection, events, opening);
    }

    /** @param ending what follows a connection's end for its handler: on the executor, or here without one */
    void afterEnd(Runnable ending) {
        if (this.execution != null) {
            this.execution.afterEnd(ending);
        }
        else {
            ending.run();
        }
    }

    /**
     * Runs a task with memory lent by the listener's worker group, on the calling thread.
     * @param task what to run
     */
    void lend(Consumer<Runner> task) {
        this.group.lend(task);
    }

    /**
     * @param task what the server's timer runs
     * @param delayMillis after how long
     * @return whether the timer took it: false without one (an embedded connection) or once the server stopped
     */
    boolean schedule(Runnable task, long delayMillis) {
        if (this.scheduler == null) {
            return false;
        }
        try {
            this.scheduler.schedule(task, delayMillis);
            return true;
        }
        catch (RejectedExecutionException ex) {
            return false;
        }
    }

    /** @param message a typed message: encoded as the listener's handlers send it */
    ByteBuffer writeMessage(Object message) {
        return this.messages.write(message);
    }

    /** @return the message read as the type, as the listener's handlers read them */
    <T> T readMessage(ByteBuffer message, Class<T> type) throws InvalidMessageException {
        return this.messages.read(message, type);
    }

    /**
     * Enters a socket of the listener into the server's table.
     * @param socket the socket
     * @return false when the table is full
     */
    boolean enter(SocketTurn socket) {
        return this.table.add(socket);
    }

    /** @param socket a new socket of the listener, owned by the calling thread: let go, which arms it */
    void letGo(SocketTurn socket) {
        this.group.letGo(socket);
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
        this.observer.closed();
    }

    /** @return the listener as seen from outside */
    BoundListener describe() {
        return this.state.describe(this.settings, this.trigger, registrations());
    }
}
