package dev.sockstate.server.engine;

import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.BoundListener;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Stage;
import dev.sockstate.server.engine.tls.TlsSupport;
import dev.sockstate.server.engine.turn.ServerScheduler;
import dev.sockstate.server.engine.turn.SocketTable;
import dev.sockstate.server.engine.turn.SocketTurn;
import dev.sockstate.server.engine.turn.WorkerGroup;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/** What one listener's sockets share at run time: settings, worker group, handler calls, observer and counts. */
final class Listener implements ServerObserver.ActiveCounts {

    private static final System.Logger logger = System.getLogger(Listener.class.getName());

    final ListenerSettings settings;

    final WorkerGroup group;

    final NativeSockets sockets;

    final SocketTable table;

    final ServerScheduler scheduler;

    final ListenerObserver observer;

    /** The framing of its connections, or {@code null} for raw reads. */
    final Framer framer;

    /** What its connections' TLS stages share, or {@code null} for plaintext. */
    final TlsSupport tls;

    /** Makers of each connection's own stages, in inbound order (TLS's, if any, comes before them). */
    final List<Supplier<? extends Stage>> stageMakers;

    /** How its handlers' messages are read and sent. */
    final Messages messages;

    /** Frames refused (bytes that did not frame or did not read as a message), logged at most once a second; all are counted. */
    private final BoundedLog framesRejected = new BoundedLog(logger);

    /** Writes made after their connection's FIN was asked for, logged at most once a second. */
    private final BoundedLog lateWrites = new BoundedLog(logger);

    /** Calls the listener's connection handler, timed and guarded. */
    final HandlerCalls handler;

    /** Where the connections' handler calls run, {@code null} on the workers. */
    final HandlerExecution execution;

    final long idleTimeoutNanos;

    /** How the backend takes registration changes: whether it raises an edge per arrival, and batches changes with dequeues. */
    final SocketTurn.ChangeRules changeRules;

    private final AtomicLong connectionIds;

    private final AtomicInteger connections = new AtomicInteger();

    private final LongAdder accepted = new LongAdder();

    private final LongAdder rejected = new LongAdder();

    private final LongAdder handlerErrors = new LongAdder();

    private volatile InetSocketAddress boundAddress;

    /** The listening TCP socket or the UDP socket, once registered. */
    private volatile SocketTurn socket;

    /** Whether the server stops: the listener's socket closing is then no failure. */
    private volatile boolean stopping;

    /** When a refusal of the handler executor was last logged, {@link System#nanoTime()}; refusals come in floods. */
    /** Refusals of the handler executor, logged at most once a second; all are counted. */
    private final BoundedLog refusals = new BoundedLog(logger);

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
            AtomicLong connectionIds, ServerObserver observer, SocketTurn.ChangeRules changeRules) {
        this.settings = settings;
        this.changeRules = changeRules;
        this.group = group;
        this.sockets = sockets;
        this.table = table;
        this.scheduler = scheduler;
        this.connectionIds = connectionIds;
        this.idleTimeoutNanos = (settings.idleTimeout() != null) ? settings.idleTimeout().toNanos() : 0;
        this.observer = observer.listener(settings.name(), settings.protocol(), this);
        this.handler = (settings.protocol() == Protocol.TCP) ? new HandlerCalls(this, settings.connectionHandler()) : null;
        this.execution = (settings.handlerExecutor() != null) ? new HandlerExecution(this, settings.handlerExecutor()) : null;
        this.framer = (settings.framing() != null) ? new Framer(this, settings.framing()) : null;
        this.tls = (settings.tls() != null) ? new TlsSupport(settings.tls(), this.observer) : null;
        this.stageMakers = settings.stages();
        this.messages = new Messages(settings);
    }

    @Override
    public int connections() {
        return this.connections.get();
    }

    @Override
    public int registrations() {
        return this.connections.get() + 1;
    }

    /** Added up over the listener's connections when asked (a metrics scrape), never on the hot path. */
    @Override
    public long pendingWriteBytes() {
        long pending = 0;
        for (SocketTurn socket : this.table.snapshot()) {
            if (socket instanceof TcpConnection connection && connection.listener == this) {
                pending += connection.output.pendingBytes();
            }
        }
        return pending;
    }

    /** @return the listener's name */
    String name() {
        return this.settings.name();
    }

    /** @return a new connection's number, unique in the server */
    long nextConnectionId() {
        return this.connectionIds.incrementAndGet();
    }

    /** @return whether another connection would exceed the maximum */
    boolean isFull() {
        return this.connections.get() >= this.settings.maxConnections();
    }

    /** A connection was accepted and entered the table. */
    void connectionAccepted() {
        this.connections.incrementAndGet();
        this.accepted.increment();
        this.observer.accepted();
    }

    /** A connection was closed at once because of the maximum; counted before the close, so a peer that sees it sees the count. */
    void connectionRejected() {
        this.rejected.increment();
        this.observer.rejected();
    }

    /** An accepted connection is finished. */
    void connectionFinished() {
        this.connections.decrementAndGet();
    }

    /**
     * @param socket the listener's registered socket
     * @param address where it is bound
     */
    void bound(SocketTurn socket, InetSocketAddress address) {
        this.socket = socket;
        this.boundAddress = address;
    }

    /** The server stops: from now on the listener's socket closing is expected. */
    void stopping() {
        this.stopping = true;
    }

    /** The listener's socket is finished: outside a stop, the listener stopped serving for good. */
    void socketFinished() {
        if (!this.stopping) {
            this.observer.stoppedServing();
            logger.log(Level.ERROR, "Listener '" + name() + "' stopped serving: its socket was closed after a failure");
        }
    }

    /** @return whether the listener's socket is registered and not closing */
    boolean isServing() {
        SocketTurn registered = this.socket;
        return registered != null && !registered.isClosing();
    }

    /** @return where the listening socket is bound, {@code null} before */
    InetSocketAddress boundAddress() {
        return this.boundAddress;
    }

    /**
     * A handler or a stage threw: logged once with the listener's name and counted.
     * @param what the socket it concerned
     * @param consequence what the runtime does about it
     * @param failure what it threw
     */
    void handlerFailed(Object what, String consequence, Throwable failure) {
        this.handlerErrors.increment();
        logger.log(Level.ERROR, "Handler of listener '" + name() + "' failed on " + what + "; " + consequence, failure);
    }

    /**
     * A peer's frame was refused: its bytes did not frame, or did not read as the handler's message
     * type. Counted, and logged at most once a second with the number since.
     * @param what the connection or datagram
     * @param consequence what the runtime does about it
     * @param failure what was wrong, its message naming the listener
     */
    void frameRejected(Object what, String consequence, Exception failure) {
        this.observer.frameRejected();
        this.framesRejected.warn(failure.getMessage() + "; " + consequence + " " + what, null);
    }

    /**
     * The handler executor refused a task: counted with the handler errors, reported, and logged at
     * most once a second with the number refused since.
     * @param what the connection or datagram the task was for
     * @param consequence what the runtime does about it
     * @param refusal the executor's refusal
     */
    void executorRefused(Object what, String consequence, RuntimeException refusal) {
        this.handlerErrors.increment();
        this.observer.handlerRefused();
        this.refusals.warn("The handler executor of listener '" + name() + "' refused work for " + what + "; " + consequence, refusal);
    }

    /**
     * A handler wrote after it asked for the connection's FIN: the bytes are dropped, which the log says.
     * @param connection the connection
     * @param bytes how many were dropped
     */
    void writeAfterShutdown(Object connection, int bytes) {
        this.lateWrites.warn("A write of " + bytes + " bytes to " + connection + " came after shutdownOutput() and was dropped", null);
    }

    /** @return the listener as seen from outside */
    BoundListener describe() {
        return new BoundListener(name(), this.settings.protocol(), this.boundAddress, this.settings.trigger(),
                this.settings.group(), connections(), registrations(), this.accepted.sum(), this.rejected.sum(),
                this.handlerErrors.sum(), isServing());
    }
}
