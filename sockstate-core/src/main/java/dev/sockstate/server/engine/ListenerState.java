package dev.sockstate.server.engine;

import dev.sockstate.port.Trigger;
import dev.sockstate.server.BoundListener;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.admission.Refusal;
import dev.sockstate.server.engine.turn.SocketTurn;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.shaping.Shaping;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * A listener's or a client's counts and reports: its own registered sockets, its admission, its
 * failures (a handler's or a stage's, logged and counted), and the warnings that may repeat (logged at most
 * once a second). A listener's sockets are its UDP sockets (one, or one per worker with receive per
 * worker) or its listening TCP sockets (one, or one per worker with accept per worker, which may accept
 * at once, so a connection takes its place under the maximum atomically). A listener with several
 * sockets serves while one of them does: when one closes after a failure, the kernel spreads the
 * connections or datagrams over those left (only those queued on the closed one are lost), so the
 * listener goes on, which an error log says; it stops serving with its last socket.
 */
final class ListenerState {

    private static final System.Logger logger = System.getLogger(ListenerState.class.getName());

    /** How messages name the listener or client: {@code Listener 'echo'}, {@code Client 'redis'}. */
    private final String label;

    /** The most open connections; changed while the listener runs. */
    private volatile int maxConnections;

    private final ListenerObserver observer;

    private final AtomicInteger connections = new AtomicInteger();

    /** What was said once for the listener, whichever of its sockets found it first. */
    private final java.util.Set<String> said = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** A UDP listener's datagrams handed to its handler executor and not yet handled, over all its sockets. */
    private final AtomicInteger datagramsInFlight = new AtomicInteger();

    private final LongAdder accepted = new LongAdder();

    private final LongAdder rejected = new LongAdder();

    /** The connections refused as they were accepted, by {@link Refusal} ordinal. */
    private final LongAdder[] rejectedBy = counters(Refusal.values().length);

    /** Connections refused as they were accepted, logged at most once a second; all are counted. */
    private final BoundedLog connectionsRefused = new BoundedLog(logger);

    private final LongAdder handlerErrors = new LongAdder();

    private volatile List<SocketTurn> sockets = List.of();

    private volatile @Nullable SocketAddress boundAddress;

    /** Frames refused (bytes that did not frame or did not read as a message), logged at most once a second; all are counted. */
    private final BoundedLog framesRejected = new BoundedLog(logger);

    /** PROXY protocol headers refused, logged at most once a second; all are counted by their stages. */
    private final BoundedLog headersRefused = new BoundedLog(logger);

    /** Writes made after their connection's FIN was asked for, logged at most once a second. */
    private final BoundedLog lateWrites = new BoundedLog(logger);

    /** Refusals of the handler executor, logged at most once a second; all are counted. */
    private final BoundedLog refusals = new BoundedLog(logger);

    /** Whether the server stops: the sockets closing is then no failure. */
    private volatile boolean stopping;

    /** The sockets not finished yet (none is armed before the listener is bound, so none finishes before). */
    private final AtomicInteger open = new AtomicInteger();

    /**
     * @param label how messages name the listener or client
     * @param maxConnections its most open connections
     * @param observer its observer
     */
    ListenerState(String label, int maxConnections, ListenerObserver observer) {
        this.label = label;
        this.maxConnections = maxConnections;
        this.observer = observer;
    }

    /** @param maxConnections the most open connections from now on (those open over it stay) */
    void maxConnections(int maxConnections) {
        this.maxConnections = maxConnections;
    }

    /** @return false, with no place taken, when another connection would exceed the maximum */
    boolean admit() {
        if (this.connections.incrementAndGet() > this.maxConnections) {
            this.connections.decrementAndGet();
            return false;
        }
        return true;
    }

    /**
     * @param max the most datagrams that may wait for the handler executor
     * @return false, with no place taken, when another datagram would exceed it
     */
    boolean admitDatagram(int max) {
        if (this.datagramsInFlight.incrementAndGet() > max) {
            this.datagramsInFlight.decrementAndGet();
            return false;
        }
        return true;
    }

    /** A datagram admitted to the handler executor was handled, or not handed over after all: its place is given back. */
    void datagramHandled() {
        this.datagramsInFlight.decrementAndGet();
    }

    /**
     * @param what what one of the listener's sockets found, to say once
     * @return whether it is the first to find it
     */
    boolean firstTime(String what) {
        return this.said.add(what);
    }

    /** An admitted connection was accepted and entered the table. */
    void accepted() {
        this.accepted.increment();
        this.observer.accepted();
    }

    /**
     * A connection was closed at once as it was accepted (or as its PROXY protocol header named its
     * client); counted before the close, and logged at most once a second.
     * @param reason why
     * @param source its source, {@code null} where unknown
     */
    void rejected(Refusal reason, @Nullable InetAddress source) {
        this.rejected.increment();
        this.rejectedBy[reason.ordinal()].increment();
        this.observer.rejected(reason);
        this.connectionsRefused.warn(() -> this.label + " refused a connection" + ((source != null) ? " from " + source.getHostAddress() : "")
                + ": " + reason.tag(), null);
    }

    /** @return the refusals so far, by reason, those that refused one */
    Map<Refusal, Long> rejectedBy() {
        Map<Refusal, Long> counts = new EnumMap<>(Refusal.class);
        for (Refusal reason : Refusal.values()) {
            long count = this.rejectedBy[reason.ordinal()].sum();
            if (count > 0) {
                counts.put(reason, count);
            }
        }
        return counts;
    }

    private static LongAdder[] counters(int count) {
        LongAdder[] counters = new LongAdder[count];
        for (int i = 0; i < count; i++) {
            counters[i] = new LongAdder();
        }
        return counters;
    }

    /** An admitted connection is finished, or was not accepted after all: its place is given back. */
    void connectionFinished() {
        this.connections.decrementAndGet();
    }

    /** @return how messages name the listener or client: {@code Listener 'echo'}, {@code Client 'redis'} */
    String label() {
        return this.label;
    }

    /**
     * A handler or a stage threw: logged once with the listener's or client's name, and counted.
     * @param what the socket it concerned
     * @param consequence what the runtime does about it
     * @param failure what it threw
     */
    void handlerFailed(Object what, String consequence, Throwable failure) {
        this.handlerErrors.increment();
        logger.log(Level.ERROR, "Handler of " + lowerLabel() + " failed on " + what + "; " + consequence, failure);
    }

    /** A peer's frame (of {@code what}) did not frame or read as the handler's type: counted, reported, logged at most once a second. */
    void frameRejected(Object what, String consequence, Exception failure) {
        this.observer.frameRejected();
        this.framesRejected.warn(failure.getMessage() + "; " + consequence + " " + what, null);
    }

    /**
     * A connection's unfinished frame took longer than the frame timeout: counted with the frames
     * rejected, logged at most once a second.
     */
    void frameTooSlow(Object connection, long millis, Duration timeout) {
        this.observer.frameRejected();
        this.framesRejected.warn(this.label + ": a frame begun " + millis + " ms ago is not finished within its frame-timeout of "
                + timeout.toMillis() + " ms; closing " + connection, null);
    }

    /** @param message why a connection's PROXY protocol header was refused (its stage counted it): logged at most once a second */
    void proxyHeaderRefused(String message) {
        this.headersRefused.warn(message, null);
    }

    /** The handler executor refused a task for {@code what}: counted with the handler errors, reported, logged at most once a second. */
    void executorRefused(Object what, String consequence, RuntimeException refusal) {
        this.handlerErrors.increment();
        this.observer.handlerRefused();
        this.refusals.warn("The handler executor of " + lowerLabel() + " refused work for " + what + "; " + consequence, refusal);
    }

    /** A handler wrote {@code bytes} to {@code connection} after it asked for the connection's FIN: dropped, which the log says at most once a second. */
    void writeAfterShutdown(Object connection, int bytes) {
        this.lateWrites.warn("A write of " + bytes + " bytes to " + connection + " came after shutdownOutput() and was dropped", null);
    }

    /** @return the label as it goes inside a sentence: {@code listener 'echo'} */
    private String lowerLabel() {
        return Character.toLowerCase(this.label.charAt(0)) + this.label.substring(1);
    }

    /** @return the open connections */
    int connections() {
        return this.connections.get();
    }

    /** @return the sockets the listener registered as it bound, none before */
    List<SocketTurn> boundSockets() {
        return this.sockets;
    }

    /**
     * @param registered the listener's sockets, bound and not armed yet
     * @param address where they are bound
     */
    void bound(List<SocketTurn> registered, SocketAddress address) {
        this.sockets = List.copyOf(registered);
        this.boundAddress = address;
        this.open.set(registered.size());
    }

    /** The server stops: from now on the sockets closing is expected. */
    void stopping() {
        this.stopping = true;
    }

    /**
     * One of the sockets is finished: outside a stop, after a failure; the last one's failure stops the
     * listener serving for good, which the observer hears.
     * @param socket the socket
     */
    void finished(SocketTurn socket) {
        int left = this.open.decrementAndGet();
        if (!this.stopping) {
            lost(left, socket);
        }
    }

    /**
     * Says that a socket was lost after a failure: the last one's loss stops the listener serving.
     * @param left the sockets still open
     * @param socket the socket lost
     */
    private void lost(int left, SocketTurn socket) {
        if (left <= 0) {
            this.observer.stoppedServing();
            logger.log(Level.ERROR, this.label + " stopped serving: its " + ((this.sockets.size() > 1) ? "last "
                    : "") + "socket was closed after a failure");
        }
        else {
            // (The socket names itself: a TCP listener's listening socket, or a UDP listener's socket.)
            logger.log(Level.ERROR, this.label + " serves on with " + left + " of its " + this.sockets.size() + " sockets: "
                    + "its " + socket + " was closed after a failure, and the kernel spreads what arrives over the others");
        }
    }

    /** @return whether one of the sockets is registered and not closing */
    boolean isServing() {
        for (SocketTurn socket : this.sockets) {
            if (!socket.isClosing()) {
                return true;
            }
        }
        return false;
    }

    /** @return its registered sockets (its UDP sockets, or its listening TCP sockets), none before it was bound */
    List<SocketTurn> ownSockets() {
        return this.sockets;
    }

    /** @return how many sockets the listener registered: one, or one per worker */
    int sockets() {
        return this.sockets.size();
    }

    /** @return how many of them are not finished: registered on a port */
    int registered() {
        return Math.max(0, this.open.get());
    }

    /** @return where they are bound, {@code null} before */
    @Nullable SocketAddress boundAddress() {
        return this.boundAddress;
    }

    /**
     * @param settings the listener's settings
     * @param trigger how its sockets are registered
     * @param registrations its registrations on the ports
     * @param shaping the rates in force
     * @return the listener as seen from outside
     */
    BoundListener describe(ListenerSettings settings, Trigger trigger, int registrations, Shaping shaping) {
        return new BoundListener(settings.name(), settings.protocol(), this.boundAddress, trigger, settings.connection().group(), connections(),
                registrations, this.accepted.sum(), this.rejected.sum(), rejectedBy(), this.handlerErrors.sum(), isServing(),
                shaping);
    }
}
