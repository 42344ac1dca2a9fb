package dev.sockstate.server.engine;

import dev.sockstate.port.Events;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.server.Connection;
import dev.sockstate.server.InvalidMessageException;
import dev.sockstate.server.PeerCredentials;
import dev.sockstate.server.Stage;
import dev.sockstate.server.StageContext;
import dev.sockstate.server.engine.HandlerCalls.Callback;
import dev.sockstate.server.engine.turn.Runner;
import dev.sockstate.server.engine.turn.SocketHome;
import dev.sockstate.server.engine.turn.SocketTurn;
import dev.sockstate.server.engine.turn.Worker;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import org.jspecify.annotations.Nullable;

/**
 * A TCP connection, accepted or a client's (a {@link ClientConnection} begins with its connect under
 * way): the one object between its socket and its handler, on top of its {@link SocketTurn}.
 * <p>
 * <b>The turn</b>, on the socket's side: it reads into the running thread's buffer and passes the
 * bytes inbound, flushes what the {@link WritePath} queued, keeps the input held while a stage asks,
 * pauses reading while too much waits to be sent or while the handler asks ({@link #pauseReading()},
 * from any thread; a stage's hold, {@link #holdInput}, is the owner's: each release asks for a turn
 * that reads what waited, which raised no edge of its own), finishes a client's connect, says which
 * events to arm next, and closes: at once, or, in a graceful stop, once what arrived is answered and
 * the peer's FIN is in. Level-triggered, a turn reads once and re-arms. Edge-triggered, a turn reads
 * until the socket would block, or, in the exclusive edge mode on a backend that raises an edge for
 * every arrival (epoll), until a read comes back shorter than the buffer (the socket was drained
 * then; later data raises a new edge) unless a notification carried a hang-up, this one or one
 * before (the kernel keeps it in every later edge), after which it reads until end of stream,
 * since data and FIN can arrive in one read. Where edges only follow a change
 * after the registration was enabled (Windows), each enable is followed by a turn that reads until
 * would-block. Either way a turn reads at most {@link SocketTurn#TURN_BUDGET} times, then yields to
 * other sockets. With a handler executor, every turn with something for the handler runs there,
 * reads included.
 * <p>
 * <b>The route</b>: bytes read go inbound, through the connection's {@link Pipeline} when the
 * listener has stages, then through the listener's framing, to the handler, which the listener calls
 * ({@link HandlerCalls}); the handler's writes go outbound the same way back, framed, through the
 * stages, to the {@link WritePath}. The open, the hang-up, errors and the close take the same route.
 * With a handler executor, {@code onClose} follows on the executor too.
 * <p>
 * <b>What a handler sees beside the traffic</b>: its number, its listener (or client), its addresses
 * (asked of the socket once, then kept; the peer's the client's that a PROXY protocol header names),
 * its TLS session and PROXY protocol header, the state a handler keeps on it, typed messages, the
 * close it asks for; and the deadlines the server's timer checks (idle time, a TLS handshake's end).
 * What of it a plain idle connection never needs waits in its {@link ConnectionExtras}, made on first
 * use.
 * <p>
 * Fields without {@code volatile} are touched only by the thread that owns the connection.
 */
class TcpConnection extends SocketTurn implements RouteHost, ReplyAwaiter {


    /** What it shares with the other connections of its listener or client: settings, route, reports, ports. */
    final ConnectionProfile profile;

    private final long id;

    /** The handler's attachment; any thread. */
    private volatile @Nullable Object attachment;

    /** When traffic last passed ({@link System#nanoTime()}), kept only with an idle timeout. */
    private volatile long lastActivity;

    /**
     * What a plain idle connection does not need (its addresses once asked, its TLS session, its PROXY
     * protocol header, ...): {@code null} until first needed ({@link #extras()}); once set, never replaced.
     */
    private volatile @Nullable ConnectionExtras extras;

    private static final VarHandle EXTRAS;

    static {
        try {
            EXTRAS = MethodHandles.lookup().findVarHandle(TcpConnection.class, "extras", ConnectionExtras.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
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
        ConnectionExtras made = new ConnectionExtras();
        ConnectionExtras witness = (ConnectionExtras) EXTRAS.compareAndExchange(this, null, made);
        return (witness != null) ? witness : made;
    }

    /** @return the connection's seldom needed state, {@code null} while none was needed; any thread */
    final @Nullable ConnectionExtras extrasIfMade() {
        return this.extras;
    }

    /**
     * @return whether the calling thread is the only one that runs the connection's turns: the only
     * worker of its port, once that worker has had a turn of it (the worker of another port that
     * accepted it opens it), on a listener without a handler executor (whose calls would run them on
     * the executor's threads); what it alone changes needs no atomic instruction
     */
    final boolean onItsOnlyWorker() {
        return Worker.runsAlone(this.port) && isHomed() && !(this.profile.executor != null);
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
    public @Nullable String listenerName() {
        return this.profile.client ? null : this.profile.name();
    }

    @Override
    public @Nullable String clientName() {
        return this.profile.client ? this.profile.name() : null;
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
    public @Nullable PeerCredentials peerCredentials() {
        ConnectionExtras extras = this.extras;
        return (extras != null) ? extras.peerCredentials : null;
    }

    /**
     * Reads the peer's credentials of a connection to a Unix domain socket, once, as it opens on the
     * accepting thread: asked later from any thread, the descriptor could be a newer connection's.
     */
    final void readPeerCredentials() {
        if (!this.profile.settings.isUnix()) {
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
        SocketAddress served = (local && !this.profile.client && this.profile.settings.isUnix()) ? this.profile.state.boundAddress() : null;
        if (served != null) {
            // The path the listener serves (its socket may have been bound elsewhere and linked there).
            return served;
        }
        SocketAddress address;
        try {
            address = local ? this.sockets.localAddress(this.handle) : this.sockets.remoteAddress(this.handle);
        }
        catch (NativeIoException ex) {
            throw new UncheckedIOException(ex);
        }
        // Asked from another thread, the call may have raced the close: the connection is marked finished
        // before its socket is closed, so once it is, the descriptor may be a newer connection's, and so
        // may the answer; it is neither returned nor kept.
        if (isFinished()) {
            throw new IllegalStateException(this + " is closed");
        }
        return address;
    }

    @Override
    public final void peerAddress(SocketAddress address) {
        // A handler of an IP listener's may take its peer as an InetSocketAddress.
        if (!this.profile.settings.isUnix() && !(address instanceof InetSocketAddress)) {
            throw new IllegalArgumentException("The peer of a TCP connection on an IP port is an InetSocketAddress, not " + address);
        }
        extras().remoteAddress = address;
    }

    @Override
    public final <T> void publish(Class<T> type, T value) {
        extras().publish(type, value);
    }

    @Override
    public final <T> @Nullable T published(Class<T> type) {
        ConnectionExtras extras = this.extras;
        return (extras != null) ? extras.published(type) : null;
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
    public void attach(@Nullable Object attachment) {
        this.attachment = attachment;
    }

    @Override
    public @Nullable Object attachment() {
        return this.attachment;
    }

    @Override
    public void send(Object message) {
        write(this.profile.writeMessage(message));
    }

    @Override
    public <T> T readMessage(ByteBuffer message, Class<T> type) throws InvalidMessageException {
        return this.profile.readMessage(message, type);
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
        if (this.profile.tracksActivity) {
            this.lastActivity = System.nanoTime();
        }
    }

    /** @return when traffic last passed, in {@link System#nanoTime()}, as far as the profile tracks it; any thread */
    final long lastActivity() {
        return this.lastActivity;
    }

    /**
     * Closes the connection when it went without traffic too long, or its unfinished frame has been
     * coming longer than the frame timeout; a connection a thread handles now (a handler running) is
     * not idle, and its time counts again from the end of that turn.
     * @param now the current {@link System#nanoTime()}
     * @param sweepNanos the time since the sweep before (its period)
     */
    final void checkIdle(long now, long sweepNanos) {
        if (isOwned()) {
            this.lastActivity = now;
            return;
        }
        long idle = now - this.lastActivity;
        long limit = this.profile.idleTimeoutNanos;
        if (limit > 0 && idle > limit) {
            if (!isClosing()) {
                this.observer.idleClosed();
            }
            // (A close that waits for the peer's FIN has its own time.)
            requestClose(idle > 2 * limit && isClosing() && this.finWait == NO_FIN_WAIT);
            return;
        }
        ConnectionExtras extras = this.extras;
        if (extras == null || extras.framingSince == 0) {
            return;
        }
        if (this.readingPaused || this.inputHeld || inputThrottled() || pausesForOwnWrites()) {
            // The server, not the peer, waits: the frame's time stands still meanwhile (to a sweep's period).
            extras.creditFramePause(sweepNanos);
            return;
        }
        long overdue = this.profile.route.frameOverdueMillis(this, now);
        if (overdue >= 0) {
            if (!isClosing()) {
                // A peer that trickles a frame, or stopped halfway through one, holds its bytes no longer.
                this.profile.state.frameTooSlow(this, overdue, this.profile.route.frameTimeout());
                requestClose(false);
            }
            else {
                // Still closing a sweep later (a peer that reads nothing of what is queued for it): the frame's
                // buffer and its share of the budget are given back now.
                requestClose(true);
            }
        }
    }

    @Override
    public String toString() {
        ConnectionExtras extras = this.extras;
        SocketAddress remote = (extras != null) ? extras.remoteAddress : null;
        if (this.profile.client) {
            return "connection " + this.id + " of client '" + this.profile.name() + "'" + ((remote != null) ? " to " + remote : "");
        }
        return "connection " + this.id + " of listener '" + this.profile.name() + "'" + ((remote != null) ? " from " + remote : "");
    }

    /** Whether the handler paused reading; any thread, set and cleared atomically. */
    volatile boolean readingPaused;

    /** Whether reading resumed since the last turn: the next turn reads, edge or level; any thread sets it, the owner clears it. */
    volatile boolean readingResumed;

    /** Whether a stage holds the input: nothing is read until it releases it; the owner. */
    boolean inputHeld;

    /** Whether a stage released the input since the last read: the next turn reads, edge or level; the owner. */
    boolean inputReleased;

    /**
     * Whether a hang-up was notified while the input was held: it is read (after what came before it)
     * once the input is released, and not watched meanwhile, which a level trigger would report again
     * and again; the owner.
     */
    boolean hangupWhileHeld;

    private static final VarHandle READING_PAUSED;

    static {
        try {
            READING_PAUSED = MethodHandles.lookup().findVarHandle(TcpConnection.class, "readingPaused", boolean.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }


    @Override
    public void holdInput(boolean hold) {
        if (hold != this.inputHeld) {
            this.inputHeld = hold;
            this.inputReleased = !hold;
            this.hangupWhileHeld = false;
            if (!hold) {
                requestTurn();
            }
        }
    }

    /** @return whether a stage holds the input now; for tests */
    boolean holdsInput() {
        return this.inputHeld;
    }

    @Override
    public void pauseReading() {
        if (!(boolean) READING_PAUSED.getAndSet(this, true)) {
            // A turn leaves the registration without input (or, one-shot, arms it so).
            requestTurn();
        }
    }

    @Override
    public void resumeReading() {
        if ((boolean) READING_PAUSED.getAndSet(this, false)) {
            // What waited raised no edge of its own: the next turn reads it.
            this.readingResumed = true;
            requestTurn();
        }
    }

    @Override
    public boolean isReadingPaused() {
        return this.readingPaused;
    }

    /** Other threads' writes a round of a turn takes at most: each may be a send of its own. */
    static final int REQUESTS_PER_ROUND = 64;

    /** The way out: sends, queues what the socket does not take, takes other threads' writes. */
    final WritePath output = new WritePath(this);

    private boolean inputClosed;

    /**
     * Reading stopped because the connection's own queue was over its limit: a read broke off, or
     * the filter left IN out. Bytes a read left in the socket raise no edge of their own, so the
     * turn that finds the queue back under its limit reads on.
     */
    private boolean readPaused;

    private boolean wouldBlock;

    private boolean inputDrained;

    /**
     * How long a connection that closes waits for its peer's FIN once it sent its own, before its socket
     * closes as it is; a graceful stop's drain waits as long after its last connection began to wait.
     */
    static final long FIN_WAIT_MILLIS = 1000;

    /** How long a connection a stage failed has to send its last words (a TLS alert, and what was queued before it) before it is reset. */
    static final long LAST_WORDS_MILLIS = 1000;

    /** Whether an error notification came with no error pending (SO_ERROR read 0): the next one fails the connection. */
    private boolean errorUnnamed;

    /**
     * Where the close's wait for the peer's FIN is ({@link #NO_FIN_WAIT}, {@link #AWAITING_FIN},
     * {@link #FIN_WAIT_OVER}): once everything is written the FIN is sent, and what the peer still sends
     * is read and dropped until its own FIN, so that the close resets nothing in flight. Set over by the
     * timer that bounds it; read by a graceful stop's thread.
     */
    private volatile byte finWait;

    private static final byte NO_FIN_WAIT = 0;

    private static final byte AWAITING_FIN = 1;

    /** The wait's time is over: the socket closes as it is, which resets the connection only if bytes came unread. */
    private static final byte FIN_WAIT_OVER = 2;

    /** The most bytes a close that waits for the peer's FIN reads and drops: a peer that sends more reads nothing, and is reset. */
    private static final long FIN_WAIT_DROP_BYTES = 1024 * 1024;

    /** @return whether a turn for these events may call the handler (or its stages), which then runs on its executor */
    private boolean hasHandlerWork(int events) {
        return events != 0 || this.output.isPending() || hasNewHandlerWork();
    }

    /**
     * @return whether work for the handler came that no notification brings: a refusal, other threads'
     *     writes, a drain that has still to read, resumes, a client's, reading resumed or input released,
     *     a refused send's retry due
     */
    private boolean hasNewHandlerWork() {
        return hasRefusal() || this.output.hasRequests() || drainReads() || hasResumes() || hasTurnWork()
                || this.readingResumed || this.inputReleased || this.output.retryDue() || outputWake();
    }

    /**
     * @return whether a graceful stop's drain has still to read what arrived; once it read it, the
     *     close is the owner's to make, which a thread lent no memory leaves to the worker
     */
    private boolean drainReads() {
        return isDraining() && !this.inputDrained && !this.inputClosed;
    }

    @Override
    protected void changeRefused(NativeIoException failure) {
        logRefusal(failure);
        // The handler hears of it in the turn that follows (on its executor, when it has one), which aborts.
        keepRefusal(failure);
        requestTurn();
    }

    @Override
    protected boolean handle(Runner runner, int events) {
        if (isAborting()) {
            return true;
        }
        if ((events & Events.HANGUP) != 0 && this.profile.shortReadsMayDrain()) {
            // (Kept even where this turn does not read: what reads later reads to the end.)
            extras().hangupNotified = true;
        }
        if (hasRefusal() && this.finWait != NO_FIN_WAIT) {
            // Nothing is owed any more: the close goes on without the handler.
            takeRefusal();
            requestClose(true);
            return true;
        }
        if (this.finWait != NO_FIN_WAIT) {
            discardUntilEnd(runner);
            return true;
        }
        if ((this.profile.executor != null) && runner.isWorker()) {
            boolean rearmOnly = this.rearmOnly;
            this.rearmOnly = false;
            if (rearmOnly && events == 0 && !hasNewHandlerWork()) {
                // The executor's turn did the handler's work, lent no memory to re-arm with: only the re-arm is left.
                return true;
            }
            if (hasHandlerWork(events)) {
                return !handOff(events, false);
            }
        }
        if (hasRefusal()) {
            failed(takeRefusal());
            return true;
        }
        if (connecting()) {
            return connected(runner, events);
        }
        runTurnWork();
        this.output.takeRequests(REQUESTS_PER_ROUND);
        runResumes();
        if (this.readingResumed) {
            this.readingResumed = false;
            events |= Events.IN;
        }
        if (this.inputReleased) {
            // What arrived while the input was held raised no edge of its own: read it now.
            this.inputReleased = false;
            events |= Events.IN;
        }
        if (inputThrottled() && readAllowance(false) > 0) {
            // Nor what arrived while the shaping held reads back.
            inputThrottled(false);
            events |= Events.IN;
        }
        // Only a hang-up notified without data can end the input when a read finds nothing.
        boolean hangupAlone = (events & (Events.IN | Events.HANGUP)) == Events.HANGUP;
        // What the peer sent before an error (a reset after its last request, or after a TLS
        // close_notify) stays readable: it is read first, and the read that finds no more names the error.
        boolean readsBeforeError = (events & Events.ERR) != 0 && !this.inputClosed && readsOn() && !this.inputHeld
                && !this.readingPaused && !pausesForOwnWrites() && !(isClosing() && !isDraining());
        if (readsBeforeError) {
            events |= Events.IN;
            this.wouldBlock = false;
        }
        else if ((events & Events.ERR) != 0) {
            if (failedAsNamed()) {
                return true;
            }
            // Windows may read SO_ERROR as 0 after an error notification: a read names the error (its
            // sample learns it so), unless data or the end of the stream come first, which pass as usual.
            if ((this.inputClosed || isClosing() && !isDraining()) && readsError()) {
                return true;
            }
            events |= Events.IN;
        }
        // (After an error notification the queue waits until the read took what came before the error.)
        if (this.output.isPending() && !readsBeforeError) {
            if (this.output.flush() && handlerOpened()) {
                inboundWritable();
            }
        }
        if (this.readPaused && this.trigger.isEdge() && !pausesForOwnWrites()) {
            // The queue that stopped reading went back under its limit (here, or in a turn whose filter stayed as
            // it was): what the read left in the socket raises no new edge.
            events |= Events.IN;
        }
        if (this.output.drainedSinceOwed() && handlerOpened()) {
            inboundWritable();
        }
        // Frames of a read held back while the queue was over its limit go before anything read now.
        releaseHeldFrames();
        if (this.inputHeld && (events & Events.HANGUP) != 0) {
            this.hangupWhileHeld = true;
        }
        // Held input is read only to learn an error no SO_ERROR named (what the read brings is held by the stage).
        // Nor while the handler paused reading, or the connection's own queue is over its limit (a
        // resume's read waits until it drained).
        boolean mayRead = !this.inputHeld && !inputThrottled() && !this.readingPaused && !pausesForOwnWrites() || (events & Events.ERR) != 0;
        if ((events & (Events.IN | Events.HANGUP)) != 0 && !this.inputClosed && readsOn() && mayRead) {
            if (!read(runner, events, hangupAlone, false)) {
                return false;
            }
            if (readsBeforeError && (this.wouldBlock || this.inputClosed) && !isAborting() && failedAsNamed()) {
                return true;
            }
            if (readsBeforeError && this.output.isPending() && !isAborting()) {
                if (this.output.flush() && handlerOpened()) {
                    inboundWritable();
                }
            }
        }
        else if (isDraining() && !this.inputDrained && !this.inputClosed && !this.inputHeld && !this.readingPaused
                && !this.output.isPending()) {
            // A graceful shutdown: answer what already arrived, all of it, until the socket would block
            // (not what a peer sends after each answer: the drain would never end under a closed loop).
            int workBefore = turnWork();
            if (!read(runner, Events.IN, false, true)) {
                return false;
            }
            if (this.wouldBlock || this.inputClosed || turnWork() - workBefore >= TURN_BUDGET) {
                // (A peer that still sends after a turn's worth of reads sends what it sent after the
                // stop began: the wait for the peer's FIN drops it, and the peer sees the FIN with it unanswered.)
                this.inputDrained = true;
            }
            else {
                postRun();
            }
        }
        // With the replies read, a client's requests are timed.
        turnEnds();
        this.output.shutdownIfDue();
        return true;
    }

    /**
     * After an error notification that no read named (none was made, or it found nothing): SO_ERROR
     * names the error, or, when nothing did twice in a row, the connection fails all the same.
     * @return whether the connection failed
     */
    private boolean failedAsNamed() {
        NativeIoException error = pendingError();
        if (error != null || this.errorUnnamed) {
            failed((error != null) ? error : new NativeIoException("recv", NativeError.OTHER, 0,
                    "The port reported an error on the connection twice, and neither SO_ERROR nor a read named it"));
            return true;
        }
        this.errorUnnamed = true;
        return false;
    }

    /**
     * Reads once to learn an error the port reported where reads stopped (the input ended, or a
     * close was asked for); what such a read returns is not handed on.
     * @return whether the read named the error, which failed the connection
     */
    private boolean readsError() {
        try {
            if (this.sockets.recv(this.handle, ByteBuffer.allocate(1)) > 0) {
                // Data still came before the error: a later notification may try again.
                this.errorUnnamed = false;
            }
            return false;
        }
        catch (NativeIoException ex) {
            failed(ex);
            return true;
        }
    }

    /**
     * @param hangupAlone whether the notification was a hang-up without data: a read that finds
     * nothing then ends the input
     * @return false when the handler call was handed to the listener's executor
     */
    private boolean read(Runner runner, int events, boolean hangupAlone, boolean untilWouldBlock) {
        NativeBuffer buffer = runner.readBuffer();
        ByteBuffer bytes = room(buffer);
        boolean edge = this.trigger.isEdge();
        // A short read drained the socket unless a FIN came with the data; only a registration for
        // HANGUP says so, so without one the turn reads on until the socket would block. Where the
        // backend does not raise an edge for every arrival, data that came after the short read but
        // before the turn ends raises none: the turn reads on until would-block there too.
        ConnectionExtras extras = this.extras;
        boolean shortReadDrains = this.profile.shortReadDrains(events) && (extras == null || !extras.hangupNotified);
        while (true) {
            if ((edge || untilWouldBlock) && turnWork() >= TURN_BUDGET) {
                // Budget spent with data maybe left: come back after the other sockets had their turn.
                yieldTurn(Events.IN | (events & Events.HANGUP));
                return true;
            }
            bytes.clear();
            // A graceful stop's drain reads what arrived before it whatever the shaping (as much as the socket held),
            // and so does the read that learns an error (what came before it is the peer's last word).
            int allowance = readAllowance(untilWouldBlock && isDraining() || (events & Events.ERR) != 0);
            if (allowance == 0) {
                // The share is spent: the timer gives the turn back once it refilled.
                inputThrottled(true);
                return true;
            }
            if (allowance < bytes.capacity()) {
                bytes.limit(allowance);
            }
            int asked = bytes.remaining();
            int read;
            try {
                read = receive(buffer, bytes);
            }
            catch (NativeIoException ex) {
                failed(ex);
                return true;
            }
            this.wouldBlock = read == NativeSockets.WOULD_BLOCK;
            if (read == NativeSockets.WOULD_BLOCK) {
                if (hangupAlone) {
                    hungUp();
                }
                return true;
            }
            if (read == 0) {
                hungUp();
                return true;
            }
            // Data came before any error: an error notified again may still be named by a later read.
            this.errorUnnamed = false;
            countWork();
            if (allowance != Integer.MAX_VALUE) {
                readShaped(read, allowance);
            }
            this.observer.received(read);
            touch();
            bytes.flip();
            inboundData(bytes);
            // (A graceful stop's drain reads on: it is closing, but answers what it reads.)
            if (!readsOn() && !(untilWouldBlock && isDraining()) || inputRefused() || this.inputClosed || this.inputHeld
                    || this.readingPaused) {
                return true;
            }
            if (pausesForOwnWrites()) {
                readPaused();
                return true;
            }
            if (read == asked && asked < bytes.capacity() && readAllowance(false) == 0) {
                // The read the share allowed filled it, and the share is spent (a level trigger would report the rest at once).
                inputThrottled(true);
                return true;
            }
            if (!untilWouldBlock && (!edge || (shortReadDrains && read < asked))) {
                return true;
            }
        }
    }

    /**
     * @return whether reading pauses because the connection's own queue is over its limit: an accepted
     * connection's, whose reads are requests its writes answer (a peer that does not read its answers
     * stops being read); never a client's ({@link ClientConnection} says so)
     */
    @Override
    public boolean pausesForOwnWrites() {
        return this.output.isOverLimit(this.profile.maxPendingWriteBytes());
    }

    /** @return where a read goes: the runner's native buffer, or, for a thread lent no memory, the heap (the handler sees the same) */
    private ByteBuffer room(@Nullable NativeBuffer buffer) {
        return (buffer != null) ? buffer.buffer() : ByteBuffer.allocate(this.profile.heapReadRoom());
    }

    /** @return one recv's result, into the native buffer or, without one, into the heap room */
    private int receive(@Nullable NativeBuffer buffer, ByteBuffer bytes) throws NativeIoException {
        return (buffer != null) ? this.sockets.recv(this.handle, buffer) : this.sockets.recv(this.handle, bytes);
    }

    /** Reading stops until the connection's own queue is back under its limit (counted once a pause). */
    private void readPaused() {
        if (!this.readPaused) {
            this.readPaused = true;
            this.observer.readPaused();
        }
    }

    private void hungUp() {
        this.inputClosed = true;
        inboundHangup();
    }

    @Override
    protected int nextFilter() {
        int filter = 0;
        if (this.finWait != NO_FIN_WAIT) {
            return this.inputClosed ? 0 : this.profile.events();
        }
        if (connecting()) {
            // A connect under way ends writable (connected) or with an error, which every backend reports unasked.
            return Events.OUT;
        }
        if (!this.inputClosed && readsOn()) {
            boolean paused = pausesForOwnWrites();
            if (paused) {
                readPaused();
            }
            this.readPaused = paused;
            if (!this.readPaused && !this.inputHeld && !this.readingPaused && !inputThrottled()) {
                filter |= this.profile.events();
            }
            else if (this.inputHeld && !this.hangupWhileHeld) {
                // Held, the connection still hears of a reset (a peer gone while its handshake's step runs).
                filter |= Events.HANGUP;
            }
        }
        if (this.output.waitsForRoom()) {
            filter |= Events.OUT;
        }
        if (filter == 0 && this.inputClosed && this.output.isShut()) {
            // Shut both ways: nothing to wait for, and the port would report the hang-up again and again.
            return -1;
        }
        return filter;
    }

    @Override
    protected boolean readyToClose() {
        if (isAborting()) {
            return true;
        }
        if (this.output.isPending() || !(this.inputDrained || this.inputClosed || this.readingPaused || !isDraining())) {
            return false;
        }
        if (isDraining() && (owesReplies() || awaitsReplies())) {
            // A client's connection waits for the replies its requests are owed, an accepted one for those
            // to the requests its handler made, until the stop's deadline.
            return false;
        }
        // The stages' last words (a TLS close_notify) go out before the socket closes.
        endOutput();
        if (isAborting() || this.output.isPending()) {
            return isAborting();
        }
        if (this.inputClosed || this.finWait == FIN_WAIT_OVER || this.profile.resetsAtClose || connecting()) {
            // Nothing more can arrive to make the close a reset, the wait's time is over, a reset is what the
            // listener asked for, or the connection never opened.
            return true;
        }
        if (this.finWait != NO_FIN_WAIT || awaitFin()) {
            return false;
        }
        // Closing now: so it stays, whatever a later turn finds.
        this.finWait = FIN_WAIT_OVER;
        return true;
    }

    /**
     * Begins the wait for the peer's FIN, as a close goes on with everything written (a graceful stop's,
     * once what arrived is answered): the FIN goes out, and what the peer still sends is read and dropped
     * until its own FIN, for at most {@value #FIN_WAIT_MILLIS} ms (a graceful stop's drain: as long as
     * the stop waits). A close with bytes unread resets the connection, and the reset drops what the
     * socket has not yet sent: a reply and the close that follows it would be lost on a peer that sent
     * more meanwhile.
     * @return whether it waits; false when the close is now (no timer to bound the wait, the peer gone)
     */
    private boolean awaitFin() {
        this.finWait = AWAITING_FIN;
        if (!this.output.shutdownNow()) {
            // The peer reset the connection already: nothing is left to wait for.
            return false;
        }
        if (!(isDraining() && !inputRefused())) {
            ScheduledFuture<?> timer = this.profile.scheduleCancellable(this::finWaitOver, FIN_WAIT_MILLIS);
            if (timer == null) {
                return false;
            }
            extras().finWaitTimer = timer;
        }
        return true;
    }

    /** The wait for the peer's FIN is over: the socket closes as it is; the timer's thread. */
    private void finWaitOver() {
        this.finWait = FIN_WAIT_OVER;
        requestClose(false);
    }

    /** Waiting for the peer's FIN: reads and drops what the peer still sends, until its FIN (then the close goes on) or an error. */
    private void discardUntilEnd(Runner runner) {
        NativeBuffer buffer = runner.readBuffer();
        ByteBuffer bytes = room(buffer);
        for (int i = 0; i < TURN_BUDGET; i++) {
            bytes.clear();
            int read;
            try {
                read = receive(buffer, bytes);
            }
            catch (NativeIoException ex) {
                // Gone: nothing was owed, so the close goes on without telling the handler.
                requestClose(true);
                return;
            }
            if (read == 0) {
                this.inputClosed = true;
                return;
            }
            if (read == NativeSockets.WOULD_BLOCK) {
                return;
            }
            ConnectionExtras extras = extras();
            extras.finWaitDropped += read;
            if (extras.finWaitDropped > FIN_WAIT_DROP_BYTES) {
                requestClose(true);
                return;
            }
        }
        postRun();
    }

    /** @return whether the connection waits for the peer's FIN in its close: it owes nothing more; any thread */
    boolean awaitsPeerFin() {
        return this.finWait != NO_FIN_WAIT;
    }

    @Override
    public boolean isWritable() {
        return this.output.isWritable();
    }

    @Override
    public boolean takesInput() {
        return !isAborting() && !inputRefused() && (!isClosing() || isDraining());
    }

    /**
     * @return the connection's traffic shaping, made as it is first shaped; {@code null} while its
     * listener or client shapes nothing; the owner
     */
    private @Nullable Shaper shaper() {
        ShapingControl control = this.profile.shaping;
        if (!control.shapes()) {
            ConnectionExtras extras = extrasIfMade();
            if (extras != null && extras.shaper != null) {
                // Lifted: the time it was still throttled is counted, and a later shaping starts afresh.
                extras.shaper.end(System.nanoTime());
                extras.shaper = null;
            }
            return null;
        }
        ConnectionExtras extras = extras();
        Shaper shaper = extras.shaper;
        if (shaper == null) {
            shaper = control.shaper(this::resumeThrottledInput, this::resumeThrottledOutput);
            extras.shaper = shaper;
        }
        return shaper;
    }

    /**
     * @return whether reads wait for the traffic shaping's share: nothing is read, nor watched, until
     * the timer gives the connection its turn back and the share refilled; the owner (the timeout
     * sweep reads it too, of a connection no thread owns)
     */
    private boolean inputThrottled() {
        ConnectionExtras extras = extrasIfMade();
        Shaper shaper = (extras != null) ? extras.shaper : null;
        return shaper != null && shaper.inputWaits;
    }

    /** @param waits whether reads wait for the traffic shaping's share (none when it was lifted meanwhile); the owner */
    private void inputThrottled(boolean waits) {
        ConnectionExtras extras = extrasIfMade();
        if (extras != null && extras.shaper != null) {
            extras.shaper.inputWaits = waits;
        }
    }

    /**
     * @param unshaped whether to read whatever the shaping (a graceful stop's drain)
     * @return the bytes the next read may take: {@link Integer#MAX_VALUE} when not shaped, 0 while
     * the shaping holds reads back; the owner
     */
    private int readAllowance(boolean unshaped) {
        Shaper shaper = unshaped ? null : shaper();
        return (shaper != null) ? shaper.readAllowance(System.nanoTime()) : Integer.MAX_VALUE;
    }

    /**
     * @param bytes bytes read under the shaping, taken from its shares; the owner
     * @param allowance what the read was allowed
     */
    private void readShaped(int bytes, int allowance) {
        ConnectionExtras extras = extrasIfMade();
        if (extras != null && extras.shaper != null) {
            extras.shaper.read(bytes, allowance);
        }
    }

    /**
     * @return the bytes the next send may take: {@link Integer#MAX_VALUE} when not shaped, 0 while the
     * shaping holds sends back (the bytes wait in the queue); the owner
     */
    int writeAllowance() {
        Shaper shaper = shaper();
        return (shaper != null) ? shaper.writeAllowance(System.nanoTime()) : Integer.MAX_VALUE;
    }

    /**
     * @param bytes bytes sent under the shaping, taken from its shares; the owner
     * @param allowance what the send was allowed
     */
    void writtenShaped(int bytes, int allowance) {
        ConnectionExtras extras = extrasIfMade();
        if (extras != null && extras.shaper != null) {
            extras.shaper.written(bytes, allowance);
        }
    }

    /** The timer's wake of a connection whose reads the shaping held back: its next turn reads; any thread. */
    private void resumeThrottledInput() {
        this.readingResumed = true;
        requestRun();
    }

    /** The timer's wake of a connection whose writes the shaping held back: its next turn sends; any thread. */
    private void resumeThrottledOutput() {
        ConnectionExtras extras = extrasIfMade();
        if (extras != null && extras.shaper != null) {
            extras.shaper.outputWake = true;
        }
        requestRun();
    }

    /** @return whether the timer's wake came for writes the shaping held back, which the next turn sends */
    private boolean outputWake() {
        ConnectionExtras extras = extrasIfMade();
        Shaper shaper = (extras != null) ? extras.shaper : null;
        return shaper != null && shaper.outputWake;
    }

    /** The queue is being sent: a wake that came for it is spent; the owner. */
    void outputWoken() {
        ConnectionExtras extras = extrasIfMade();
        if (extras != null && extras.shaper != null && extras.shaper.outputWake) {
            extras.shaper.outputWake = false;
        }
    }

    /** @return whether the peer's bytes were refused ({@link ConnectionExtras#inputRefused}); the owner */
    private boolean inputRefused() {
        ConnectionExtras extras = extrasIfMade();
        return extras != null && extras.inputRefused;
    }

    /**
     * @return whether what arrives is read as it comes: until a close is asked for, and through a
     * graceful stop's drain while a client's connection is owed replies (an accepted one reads only
     * what had arrived when the drain reached it)
     */
    private boolean readsOn() {
        return !isClosing() || isDraining() && owesReplies();
    }

    /** The stages between socket and handler, or {@code null} for a listener without stages. */
    private @Nullable Pipeline pipeline;

    /**
     * With framing, the {@link Framer}'s state for this connection, touched by it alone (through {@link RouteHost}),
     * held here so that a connection keeps no object of its own for it: the unfinished frame, kept
     * across reads, or the rest of a read held back ({@code null} when there is none), and what it is; whether one read's frames are being handed out,
     * so that their replies are gathered; and the replies gathered meanwhile, sent as one (a buffer
     * lent for that time, not kept).
     */
    private @Nullable ByteBuffer framingPartial;

    /**
     * What {@link #framingPartial} holds: part of one frame searched through, part of one frame whose
     * length was told, or the rest of a read held back while the connection's own queue was over its
     * limit (the {@link Framer}'s constants).
     */
    private byte framingKept;

    /** See {@link #framingPartial}. */
    private boolean framingGathers;

    /** See {@link #framingPartial}. */
    private @Nullable ByteBuffer framingReplies;

    @Override
    public final @Nullable ByteBuffer framingPartial() {
        return this.framingPartial;
    }

    @Override
    public final void framingPartial(@Nullable ByteBuffer partial) {
        this.framingPartial = partial;
    }

    @Override
    public final int framingSince() {
        ConnectionExtras extras = this.extras;
        return (extras != null) ? extras.framingSince : 0;
    }

    @Override
    public final void framingSince(int since) {
        // (Only a frame that spans reads is timed: it holds a buffer of its own, beside which these are little.)
        if (since != 0 || this.extras != null) {
            ConnectionExtras extras = extras();
            extras.framingSince = since;
            extras.framingPaused = 0;
        }
    }

    @Override
    public final int framingPaused() {
        ConnectionExtras extras = this.extras;
        return (extras != null) ? extras.framingPaused : 0;
    }

    @Override
    public final byte framingKept() {
        return this.framingKept;
    }

    @Override
    public final void framingKept(byte kept) {
        this.framingKept = kept;
    }

    @Override
    public final boolean framingGathers() {
        return this.framingGathers;
    }

    @Override
    public final void framingGathers(boolean gathers) {
        this.framingGathers = gathers;
    }

    @Override
    public final @Nullable ByteBuffer framingReplies() {
        return this.framingReplies;
    }

    @Override
    public final void framingReplies(@Nullable ByteBuffer replies) {
        this.framingReplies = replies;
    }

    @Override
    public final StageContext.Deadline deadline(long delayMillis, Runnable task) {
        ScheduledFuture<?> timed = this.profile.scheduleCancellable(task, delayMillis);
        return (timed != null) ? () -> timed.cancel(false) : StageContext.Deadline.NONE;
    }

    @Override
    public final long saved() {
        ConnectionExtras extras = this.extras;
        return (extras != null) ? extras.framingProgress : 0;
    }

    @Override
    public final void save(long state) {
        // (Only a decoder that resumes its parse saves anything: what it saves waits with what a connection seldom needs.)
        if (state != 0 || this.extras != null) {
            extras().framingProgress = state;
        }
    }

    @Override
    public final long framingSkip() {
        ConnectionExtras extras = this.extras;
        return (extras != null) ? extras.framingSkip : 0;
    }

    @Override
    public final void framingSkip(long count) {
        // (A refused frame is rare: what it leaves to skip waits with what a connection seldom needs.)
        if (count != 0 || this.extras != null) {
            extras().framingSkip = count;
        }
    }

    @Override
    public final long framingLeast() {
        ConnectionExtras extras = this.extras;
        return (extras != null) ? extras.framingLeast : 0;
    }

    @Override
    public final void framingLeast(long length) {
        // (Only a decoder that announces a length it knows the frame reaches sets one.)
        if (length != 0 || this.extras != null) {
            extras().framingLeast = length;
        }
    }

    /** Whether the handler's onOpen was called without stages (with, the pipeline knows). */
    private boolean opened;

    /**
     * Whether the last turn ran on a handler executor's thread lent no memory, which left the re-arm to
     * a worker: the worker's next turn, with no new work for the handler, only re-arms; the owner.
     */
    private boolean rearmOnly;

    /** Whether the stages were told that the output ends ({@link #endOutput()}). */
    private boolean outputEnded;

    /** A connection served on the next port of its listener's group. */
    TcpConnection(ConnectionProfile profile, long handle) {
        this(profile, profile.home(), handle);
    }

    /** A connection served where the home given says (the port of the listening socket that accepted it, say). */
    TcpConnection(ConnectionProfile profile, SocketHome home, long handle) {
        super(home, handle, profile.trigger, true);
        this.profile = profile;
        this.id = profile.nextConnectionId();
        touch();
    }

    /** An accepted connection is open from its first turn; a client's overrides this while its connect is under way. */
    boolean connecting() {
        return false;
    }

    /** Never called: {@link #connecting()} is false. */
    boolean connected(Runner runner, int events) {
        throw new IllegalStateException("an accepted connection has no connect");
    }

    /**
     * @param why the connection is aborted, with the reason its client hears: the connect failed or did
     * not end in time (it closes before it opened), a request timed out; any thread
     */
    void closeFailed(Throwable why) {
        keepFailure(why);
        requestClose(true);
    }

    /** @return whether requests sent on the connection (a client's) wait for their replies */
    boolean owesReplies() {
        return false;
    }

    /** @return whether requests its handler made (an accepted connection's, for the server's clients) wait for their replies */
    boolean awaitsReplies() {
        ConnectionExtras extras = extrasIfMade();
        return extras != null && extras.awaitsReplies();
    }

    @Override
    public void replyAwaited() {
        extras().replyAwaited(onItsOnlyWorker());
    }

    @Override
    public void replyCame() {
        ConnectionExtras extras = extras();
        boolean here = onItsOnlyWorker();
        int left = extras.replyCame(here);
        if (here && left != 0 && isDraining()) {
            // A stop waits: the count is read again after a fence, so that this worker and another
            // thread ending the last two at once cannot both read the other's count from before.
            VarHandle.fullFence();
            left = extras.awaitedNow();
        }
        if (left == 0 && isDraining()) {
            requestRun();
        }
    }

    /** @return why the connection ended, if it failed; {@code null} for a close */
    @Nullable Throwable failure() {
        ConnectionExtras extras = extrasIfMade();
        return (extras != null) ? extras.failure : null;
    }

    /** @param why why the connection fails, kept unless an earlier reason was; any thread */
    private void keepFailure(Throwable why) {
        ConnectionExtras extras = extras();
        if (extras.failure == null) {
            extras.failure = why;
        }
    }

    /** @param runner the accepting thread's, which owns the connection: makes its stages, passes the open inbound, arms it */
    void open(Runner runner) {
        readPeerCredentials();
        if (!openHere(runner)) {
            return;
        }
        // The acceptor's turn goes on with the next connection: what this one's enable raises is a turn of its own.
        eventsToNextTurn();
        release(runner);
    }

    /**
     * Makes the connection's stages and passes the open inbound, on this thread or the handler executor's.
     * @return true when the calling thread still owns the connection, false when the open was handed on
     */
    final boolean openHere(Runner runner) {
        try {
            this.pipeline = this.profile.route.newPipeline(this);
        }
        catch (Throwable ex) {
            // The listener goes on: only this connection, which never opened, is aborted.
            this.profile.state.handlerFailed(this, "its stages could not be made; closing the connection", ex);
            requestClose(true);
            return true;
        }
        if (runner.isWorker() && handOff(0, true)) {
            return false;
        }
        turnHandedOver(runner, 0, true);
        return true;
    }

    /**
     * A turn on the thread it was handed to (a handler executor's), or the open on the accepting one.
     * @param opening whether the turn opens the connection
     * @return true to let go now, false when the ownership was handed on
     */
    boolean turnHandedOver(Runner runner, int events, boolean opening) {
        // A thread lent no memory leaves the re-arm to a worker, which then takes nothing back to the
        // executor but new work: queued output alone would send it back to a thread that again has none.
        this.rearmOnly = runner.handsOn();
        if (!opening) {
            return handle(runner, events);
        }
        if (!isAborting()) {
            inboundOpen();
        }
        this.output.shutdownIfDue();
        return true;
    }


    /**
     * Hands the handler the frames of a read that were held back while the connection's own queue was
     * over its limit, if any, once it is not; the owner.
     */
    void releaseHeldFrames() {
        this.profile.route.releaseHeldFrames(this);
    }

    /** Runs the work the stages resumed from other threads, if any; the owner. */
    void runResumes() {
        if (this.pipeline != null) {
            this.pipeline.runResumes();
        }
    }

    /** Passes the open inbound: through the stages, or to the handler. */
    void inboundOpen() {
        if (this.pipeline != null) {
            this.pipeline.open();
        }
        else {
            this.opened = true;
            this.profile.route.call(Callback.OPEN, this, null, null);
        }
    }

    /** @return whether the handler's onOpen was called: only then do its onError and onClose follow */
    boolean handlerOpened() {
        return (this.pipeline != null) ? this.pipeline.handlerOpened() : this.opened;
    }

    /** @param data bytes read, passed inbound: through the stages, or to the handler */
    void inboundData(ByteBuffer data) {
        if (this.pipeline != null) {
            this.pipeline.data(data);
        }
        else {
            handlerEnd(data);
        }
    }

    @Override
    public void handlerEnd(ByteBuffer data) {
        this.profile.route.toHandler(this, data);
    }

    @Override
    public void startTls() {
        if (!this.profile.startsTlsOnRequest()) {
            throw new IllegalStateException("Connection " + id() + " has no TLS to start on request (Tls.withStartTls, ssl.start-tls)");
        }
        if (!isOwnedByCurrentThread()) {
            // After the writes this thread handed over before, and before those it hands over after.
            this.output.handOverStartTls();
            return;
        }
        startTlsNow();
    }

    /**
     * Starts TLS on the owning thread: the replies framed so far go out in plaintext first, and what
     * the framing keeps unhanded goes to the handshake.
     * @throws IllegalStateException once TLS was started
     */
    void startTlsNow() {
        this.pipeline.startTls(() -> this.profile.route.sendGathered(this));
        if (this.pipeline.tlsStartedBetweenReads()) {
            // Bytes the framing keeps, not handed out yet (an unfinished frame, frames held back), came after
            // what the handler read: the handshake's, never to be joined with what TLS will pass on.
            this.profile.route.handBackKept(this);
        }
    }

    @Override
    public boolean tlsStarting() {
        Pipeline pipeline = this.pipeline;
        return pipeline != null && pipeline.tlsStarting();
    }

    @Override
    public void tlsRest(ByteBuffer rest) {
        this.pipeline.tlsRest(rest);
    }

    @Override
    public void socketEnd(ByteBuffer data, boolean owned) {
        this.output.send(data, owned);
    }

    /** The output ends gracefully (a close, or a FIN): the stages hear of it once, and may write a last time. */
    void endOutput() {
        if (!this.outputEnded && this.pipeline != null) {
            this.outputEnded = true;
            this.pipeline.outputEnding();
        }
    }

    /** @return the first stage (TLS's, when the listener has TLS), {@code null} without stages; for tests */
    @Nullable Stage firstStage() {
        return (this.pipeline != null) ? this.pipeline.stage(0) : null;
    }

    @Override
    protected void finish() {
        if (this.profile.lingeringCloser != null && isAborting()) {
            // An abort resets, whatever its SO_LINGER: its peer is gone or refused, and no close waits for it.
            try {
                this.sockets.setOption(this.handle, NativeSocketOption.LINGER, 0);
            }
            catch (NativeIoException ex) {
                // Closed all the same, below.
            }
            closeSocket();
        }
        else if (this.profile.lingeringCloser != null) {
            closeSocketLater(this.profile.lingeringCloser::close);
        }
        else {
            closeSocket();
        }
        AdmissionControl admission = this.profile.admission;
        if (admission != null && admission.counts()) {
            admission.release(this);
        }
        ConnectionExtras extras = extrasIfMade();
        if (extras != null && extras.shaper != null) {
            extras.shaper.end(System.nanoTime());
        }
        if (extras != null && extras.finWaitTimer != null) {
            // The peer's FIN came in time: the timer lets the connection go now, not a second later.
            extras.finWaitTimer.cancel(false);
        }
        this.output.release();
        this.profile.route.dropFraming(this);
        this.profile.state.connectionFinished();
        if ((this.profile.executor != null) && (this.pipeline != null || handlerOpened()) && Worker.onWorkerThread()) {
            // Not on a worker (a stop that ends the connection runs it where it is).
            this.profile.afterEnd(this::ended);
        }
        else {
            ended();
        }
    }

    /**
     * The stages and the handler hear that the connection is closed: after the outcomes of its
     * handler's requests that were handed over and not handed on yet, under the lock that those that
     * come from now on are handed on under ({@link #handToTurn}), so that none runs beside these calls.
     */
    private void ended() {
        ConnectionExtras extras = extrasIfMade();
        if (extras == null) {
            endCalls();
            return;
        }
        synchronized (extras.lastCalls) {
            extras.runLastTasks();
            endCalls();
        }
    }

    private void endCalls() {
        if (this.pipeline != null) {
            this.pipeline.closed();
        }
        if (handlerOpened()) {
            this.profile.route.call(Callback.CLOSE, this, null, null);
        }
        dropAttachment();
    }

    @Override
    public void write(ByteBuffer data) {
        this.output.write(data);
    }

    /**
     * Bytes going out on the owning thread: through the stages, if any, to the socket.
     * @param owned whether the buffer is a copy the write queue may keep
     */
    void outbound(ByteBuffer data, boolean owned) {
        this.profile.route.fromHandler(this, data, owned);
    }

    @Override
    public void toSocket(ByteBuffer data, boolean owned) {
        if (this.pipeline != null) {
            this.pipeline.write(data);
        }
        else {
            this.output.send(data, owned);
        }
    }

    @Override
    public long pendingWriteBytes() {
        return this.output.pendingBytes() + this.profile.route.gatheredBytes(this);
    }

    /** @return the bytes queued for the sockets of the profile's connections, added up when asked (a metrics scrape), never on the hot path */
    static long queuedBytesOf(ConnectionProfile profile) {
        long pending = 0;
        for (SocketTurn socket : profile.allSockets()) {
            if (socket instanceof TcpConnection connection && connection.profile == profile) {
                pending += connection.queuedBytes();
            }
        }
        return pending;
    }

    /** @return the bytes queued for the socket, for any thread (what a metrics scrape adds up) */
    long queuedBytes() {
        return this.output.pendingBytes();
    }

    @Override
    public void shutdownOutput() {
        this.output.shutdownOutput();
    }

    @Override
    public void failed(Throwable error) {
        boolean told = closesForAFailureTold();
        keepFailure(error);
        if (told) {
            // Closing after a failure the handler heard of, with its last words under way: the socket
            // failing now (a peer gone meanwhile) ends it without a second error.
            if (!isAborting()) {
                requestClose(true);
            }
            return;
        }
        if (this.outputEnded && isClosing() && peerGone(error)) {
            // Closing, with the stages' last words (a TLS close_notify) under way: all the handler wrote
            // went to the socket before them, and its conversation is over. A peer gone meanwhile ends it
            // without an error for the handler (the failure is kept for the observers).
            if (!isAborting()) {
                requestClose(true);
            }
            return;
        }
        if (!isAborting()) {
            requestClose(true);
            if (handlerOpened()) {
                this.profile.route.call(Callback.ERROR, this, null, error);
            }
        }
    }

    @Override
    public void failedAfterWrites(Throwable error) {
        if (isAborting() || !this.output.isPending()) {
            // Nothing waits to be sent (or nothing more will be): the abort loses nothing.
            failed(error);
            return;
        }
        boolean told = closesForAFailureTold();
        keepFailure(error);
        ConnectionExtras extras = extras();
        // Nothing after the failure is read or handed on; what was written goes out before the close,
        // which ends a graceful stop's drain too. The timer bounds the wait for a peer that reads nothing.
        extras.inputRefused = true;
        requestClose(false);
        if (!this.profile.schedule(this::lastWordsOver, LAST_WORDS_MILLIS)) {
            requestClose(true);
        }
        if (!told && handlerOpened()) {
            this.profile.route.call(Callback.ERROR, this, null, error);
        }
    }

    /** The last words' time is over: unless they all went and the close waits for the peer's FIN, it aborts; the timer's thread. */
    private void lastWordsOver() {
        if (this.finWait == NO_FIN_WAIT) {
            requestClose(true);
        }
    }

    /**
     * @return whether the connection closes for a failure its handler was told of (the peer's bytes
     * refused, a stage's failure), nothing more read while what is owed is sent; the owner
     */
    private boolean closesForAFailureTold() {
        ConnectionExtras extras = extrasIfMade();
        return extras != null && extras.inputRefused && extras.failure != null && isClosing();
    }

    /** @return whether the failure says the peer is gone: it reset the connection, or a send found it closed */
    private static boolean peerGone(Throwable error) {
        return error instanceof NativeIoException failure
                && (failure.error() == NativeError.CONNECTION_RESET || failure.error() == NativeError.BROKEN_PIPE);
    }

    /**
     * The handler hears of a failure of the runtime in the connection's turn as of any other that ends
     * its connection (onError, then onClose), after the abort is asked for and the failure logged: what
     * telling it throws in turn is added to the failure, and changes nothing.
     */
    @Override
    public void runtimeFailed(Throwable failure) {
        boolean closing = isAborting();
        super.runtimeFailed(failure);
        if (closing) {
            return;
        }
        try {
            keepFailure(failure);
            if (handlerOpened()) {
                this.profile.route.call(Callback.ERROR, this, null, failure);
            }
        }
        catch (RuntimeException | LinkageError ex) {
            failure.addSuppressed(ex);
        }
    }

    /**
     * The peer's bytes were refused (they do not frame, or do not read as the handler's message
     * type): the handler's onError hears why and may answer (a protocol error reply), then the
     * connection closes once that answer is sent; nothing more is read from it.
     * @param why what was wrong
     */
    @Override
    public void rejected(Exception why) {
        if (isClosing() && !isDraining()) {
            // Closing already, as asked: the handler heard of it. A graceful stop's drain is ended below.
            return;
        }
        keepFailure(why);
        // Nothing after the refused bytes is handed on: the rest of the read, of a record, of the frames held.
        extras().inputRefused = true;
        if (handlerOpened()) {
            this.profile.route.call(Callback.ERROR, this, null, why);
        }
        if (awaitsReplies()) {
            // Requests its handler made of the server's clients for what came before the refused bytes
            // are still owed their replies: the connection reads nothing more, writes those replies as
            // they come (each request ends by its timeout, if it has one), then sends its FIN and
            // waits a second for the peer's, so that what the peer sent meanwhile resets nothing.
            this.inputDrained = true;
            requestDrainAndClose();
        }
        else {
            requestClose(false);
        }
    }
    /** @return whether the stages resumed work from other threads that waits for the owner */
    boolean hasResumes() {
        return this.pipeline != null && this.pipeline.hasResumes();
    }

    /** @return whether work was handed to the connection's turn that no notification brings (a client's adds its own); any thread */
    boolean hasTurnWork() {
        ConnectionExtras extras = extrasIfMade();
        return extras != null && extras.hasTasks();
    }

    /** Runs the work handed to the connection's turn: the tasks other threads handed over; the owner. */
    void runTurnWork() {
        ConnectionExtras extras = extrasIfMade();
        if (extras != null && extras.hasTasks()) {
            extras.runTasks();
        }
    }

    /** The turn's reads are done (a client's takes its requests' times here); the owner. */
    void turnEnds() {
    }

    @Override
    public final boolean lastCallsBegan() {
        ConnectionExtras extras = extrasIfMade();
        return extras != null && extras.lastCallsBegan();
    }

    @Override
    public final void handToTurn(Runnable task) {
        ConnectionExtras extras = extras();
        if (extras.handToTurn(task)) {
            requestRun();
            return;
        }
        // The connection ended: run here, under the lock of its last calls, so not beside them nor another such.
        synchronized (extras.lastCalls) {
            task.run();
        }
    }

    /** @return whether the connection passes each write on to the socket as it is: no stages, no framing that encodes */
    boolean writesPassAsIs() {
        return this.pipeline == null && this.profile.route.writesAsIs();
    }

    /**
     * @return whether the calling thread is the one that runs the connection's turns now: in its turn,
     * or its port's only worker ({@link #onItsOnlyWorker()})
     */
    @Override
    public final boolean callsHere() {
        return isOwnedByCurrentThread() || onItsOnlyWorker();
    }

    /**
     * Hands the ownership and the rest of a turn to the handler executor: the executor's thread runs
     * the whole turn, reads included, and lets the connection go. A refusal fails this connection only
     * (counted, and told to the handler if it opened), and the turn goes on on the calling thread.
     * @param events the turn's events
     * @param opening whether the turn opens the connection (passes the open inbound first)
     * @return whether the executor took it; false without an executor
     */
    private boolean handOff(int events, boolean opening) {
        Executor executor = this.profile.executor;
        if (executor == null) {
            return false;
        }
        handOver();
        try {
            executor.execute(() -> runHandedOff(events, opening));
            return true;
        }
        catch (RejectedExecutionException ex) {
            if (!takeOverHandedOff()) {
                // A stop finished the connection meanwhile: nothing is left to do here.
                return true;
            }
            this.profile.state.executorRefused(this, "closing the connection", ex);
            failed(ex);
            return false;
        }
    }

    /** The turn handed off, on the executor's thread. */
    private void runHandedOff(int events, boolean opening) {
        if (!takeOverHandedOff()) {
            // A stop finished the connection before this task ran.
            return;
        }
        this.profile.lend((runner) -> {
            boolean letGo = true;
            try {
                letGo = turnHandedOver(runner, events, opening);
            }
            catch (RuntimeException | LinkageError ex) {
                // The runtime's own failure (handlers' are caught where they are called): still let go.
                runtimeFailed(ex);
            }
            if (letGo) {
                release(runner);
            }
        });
    }

    /** The input ended (the peer's FIN): passed inbound, through the stages, or to the handler. */
    void inboundHangup() {
        if (this.pipeline != null) {
            this.pipeline.hangup();
        }
        else {
            this.profile.route.call(Callback.HANGUP, this, null, null);
        }
    }

    /** Queued bytes were sent after the socket had no room: the handler hears it can write more. */
    void inboundWritable() {
        this.profile.route.call(Callback.WRITABLE, this, null, null);
    }
}
