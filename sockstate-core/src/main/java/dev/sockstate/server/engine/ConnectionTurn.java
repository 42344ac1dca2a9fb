package dev.sockstate.server.engine;

import dev.sockstate.port.Events;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.server.engine.turn.Runner;
import dev.sockstate.server.engine.turn.SocketHome;
import dev.sockstate.server.engine.turn.SocketTurn;
import java.nio.ByteBuffer;

/**
 * An accepted TCP connection's turn: what it does with each notification, on the socket's side. It
 * reads into the running thread's buffer and passes the bytes inbound (the route to the handler is
 * {@link TcpConnection}'s), flushes what the {@link WritePath} queued, keeps the input held while a
 * stage asks, pauses reading while too much waits to be sent or while the handler asks, finishes a
 * client's connect, says which events to arm next, and
 * closes: at once, or, in a graceful stop, once what arrived is answered and the peer's FIN is in.
 * Fields without {@code volatile} are touched only by the thread that owns the connection.
 * <p>
 * Level-triggered, a turn reads once and re-arms. Edge-triggered, a turn reads until the socket
 * would block, or, in the exclusive edge mode on a backend that raises an edge for every arrival
 * (epoll), until a read comes back shorter than the buffer (the socket was drained then; later data
 * raises a new edge) unless the notification carried a hang-up, after which it reads until end of
 * stream, since data and FIN can arrive in one read. Where edges only follow a change after the
 * registration was enabled (Windows), each enable is followed by a turn that reads until would-block.
 * Either way a turn reads at most {@link SocketTurn#TURN_BUDGET} times, then yields to other sockets.
 * With a handler executor, every turn with something for the handler runs there, reads included.
 */
abstract class ConnectionTurn extends ReadGate {

    /** Other threads' writes a round of a turn takes at most: each may be a send of its own. */
    static final int REQUESTS_PER_ROUND = 64;

    /** The way out: sends, queues what the socket does not take, takes other threads' writes. */
    final WritePath output = new WritePath(this);

    private boolean inputClosed;

    private boolean readPaused;

    private boolean wouldBlock;

    private boolean inputDrained;

    /** Whether an error notification came with no error pending (SO_ERROR read 0): the next one fails the connection. */
    private boolean errorUnnamed;

    /**
     * Whether a graceful stop's close lingers: what arrived before the stop is answered and the FIN
     * sent; what the peer sent meanwhile is read and dropped until its own FIN, so that the close
     * resets nothing in flight. Read by the stop's thread, which aborts a peer that lingers too long.
     */
    private volatile boolean lingering;

    /** @param link a client's connection's tie to its client; {@code null} for an accepted connection */
    ConnectionTurn(Listener listener, SocketHome home, long handle, ClientLink link) {
        super(listener, home, handle, link);
    }

    /** @return whether a turn for these events may call the handler (or its stages), which then runs on its executor */
    private boolean hasHandlerWork(int events) {
        return events != 0 || hasRefusal() || this.output.hasRequests() || this.output.isPending() || isDraining()
                || hasResumes() || hasClientWork();
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
        if (hasRefusal() && this.lingering) {
            // Nothing is owed any more: the close goes on without the handler.
            takeRefusal();
            requestClose(true);
            return true;
        }
        if (this.lingering) {
            discardUntilEnd(runner);
            return true;
        }
        if (this.listener.hasExecutor() && runner.isWorker() && hasHandlerWork(events)) {
            return !handOff(events);
        }
        if (hasRefusal()) {
            failed(takeRefusal());
            return true;
        }
        if (connecting()) {
            return connected(runner, events);
        }
        runClientWork();
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
        // Only a hang-up notified without data can end the input when a read finds nothing.
        boolean hangupAlone = (events & (Events.IN | Events.HANGUP)) == Events.HANGUP;
        if ((events & Events.ERR) != 0) {
            NativeIoException error = pendingError();
            if (error != null || this.errorUnnamed) {
                failed((error != null) ? error : new NativeIoException("recv", NativeError.OTHER, 0,
                        "The port reported an error on the connection twice, and neither SO_ERROR nor a read named it"));
                return true;
            }
            // Windows may read SO_ERROR as 0 after an error notification: a read names the error (its
            // sample learns it so), unless data or the end of the stream come first, which pass as usual.
            this.errorUnnamed = true;
            if ((this.inputClosed || isClosing() && !isDraining()) && readsError()) {
                return true;
            }
            events |= Events.IN;
        }
        if (this.output.isPending()) {
            if (this.output.flush() && handlerOpened()) {
                inboundWritable();
            }
            if (this.readPaused && !this.output.isPending() && this.trigger.isEdge()) {
                events |= Events.IN;
            }
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
        boolean mayRead = !this.inputHeld && !this.readingPaused && !pausesForOwnWrites() || (events & Events.ERR) != 0;
        if ((events & (Events.IN | Events.HANGUP)) != 0 && !this.inputClosed && readsOn() && mayRead) {
            if (!read(runner, events, hangupAlone, false)) {
                return false;
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
                // stop began: the linger drops it, and the peer sees the FIN with it unanswered.)
                this.inputDrained = true;
            }
            else {
                postRun();
            }
        }
        // With the replies read, a client's requests are timed.
        clientTurnEnds();
        this.output.shutdownIfDue();
        return true;
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
        boolean shortReadDrains = this.listener.shortReadDrains(events);
        while (true) {
            if ((edge || untilWouldBlock) && turnWork() >= TURN_BUDGET) {
                // Budget spent with data maybe left: come back after the other sockets had their turn.
                yieldTurn(Events.IN | (events & Events.HANGUP));
                return true;
            }
            bytes.clear();
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
            this.observer.received(read);
            touch();
            bytes.flip();
            inboundData(bytes);
            // (A graceful stop's drain reads on: it is closing, but answers what it reads.)
            if (!readsOn() && !(untilWouldBlock && isDraining()) || this.inputClosed || this.inputHeld || this.readingPaused
                    || pausesForOwnWrites()) {
                return true;
            }
            if (!untilWouldBlock && (!edge || (shortReadDrains && read < bytes.capacity()))) {
                return true;
            }
        }
    }

    /**
     * @return whether reading pauses because the connection's own queue is over its limit: an accepted
     * connection's, whose reads are requests its writes answer (a peer that does not read its answers
     * stops being read); never a client's, whose reads are the backend's answers, which the backend
     * stops sending if they are not read (both would wait for each other), and which its handler
     * pauses itself when they go elsewhere ({@link #pauseReading()})
     */
    final boolean pausesForOwnWrites() {
        return !this.listener.isClient() && this.output.isOverLimit(this.listener.maxPendingWriteBytes());
    }

    /** @return where a read goes: the runner's native buffer, or, for a thread lent no memory, the heap (the handler sees the same) */
    private ByteBuffer room(NativeBuffer buffer) {
        return (buffer != null) ? buffer.buffer() : ByteBuffer.allocate(this.listener.heapReadRoom());
    }

    /** @return one recv's result, into the native buffer or, without one, into the heap room */
    private int receive(NativeBuffer buffer, ByteBuffer bytes) throws NativeIoException {
        return (buffer != null) ? this.sockets.recv(this.handle, buffer) : this.sockets.recv(this.handle, bytes);
    }

    private void hungUp() {
        this.inputClosed = true;
        inboundHangup();
    }

    @Override
    protected int nextFilter() {
        int filter = 0;
        if (this.lingering) {
            return this.inputClosed ? 0 : this.listener.events();
        }
        if (connecting()) {
            // A connect under way ends writable (connected) or with an error, which every backend reports unasked.
            return Events.OUT;
        }
        if (!this.inputClosed && readsOn()) {
            boolean paused = pausesForOwnWrites();
            if (paused && !this.readPaused) {
                this.observer.readPaused();
            }
            this.readPaused = paused;
            if (!this.readPaused && !this.inputHeld && !this.readingPaused) {
                filter |= this.listener.events();
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
        if (isDraining() && !this.inputClosed) {
            linger();
            return false;
        }
        return true;
    }

    /** A graceful stop's close, once what arrived is answered: the FIN goes out, and the peer's is awaited. */
    private void linger() {
        if (this.lingering) {
            return;
        }
        this.lingering = true;
        this.output.shutdownNow();
    }

    /** Lingering: reads and drops what the peer still sends, until its FIN (then the close goes on) or an error. */
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
        }
        postRun();
    }

    /** @return whether the connection lingers in a graceful stop's close: it owes nothing, and waits for the peer's FIN; any thread */
    boolean isLingering() {
        return this.lingering;
    }

    @Override
    public boolean isWritable() {
        return this.output.isWritable();
    }

    @Override
    public boolean takesInput() {
        return !isAborting() && (!isClosing() || isDraining());
    }

    /** @return whether requests sent on the connection (a client's) wait for their replies */
    abstract boolean owesReplies();

    /** @return whether requests its handler made (an accepted connection's, for the server's clients) wait for their replies */
    abstract boolean awaitsReplies();

    /**
     * @return whether what arrives is read as it comes: until a close is asked for, and through a
     * graceful stop's drain while a client's connection is owed replies (an accepted one reads only
     * what had arrived when the drain reached it)
     */
    private boolean readsOn() {
        return !isClosing() || isDraining() && owesReplies();
    }

    /** @return whether a client's connect is under way: the connection is not open yet; the owner */
    abstract boolean connecting();

    /**
     * A client's connect ended: opens the connection, or closes it with the failure.
     * @param events the notification's
     * @return true to let go now, false when the open was handed to the handler executor
     */
    abstract boolean connected(Runner runner, int events);

    /** @return whether the stages resumed work from other threads that waits for the owner */
    abstract boolean hasResumes();

    /** @return whether a client's connection has requests handed over to write, or a timeout to check; any thread */
    abstract boolean hasClientWork();

    /** Writes a client's connection's requests handed over, and hands on outcomes handed over; owner only. */
    abstract void runClientWork();

    /** A client's connection's turn ends, its replies read: its requests' times are taken and checked when asked; owner only. */
    abstract void clientTurnEnds();

    /** @return whether the connection passes each write on to the socket as it is: no stages, no framing that encodes */
    abstract boolean writesPassAsIs();

    /**
     * Hands the handler the frames of a read that were held back while the connection's own queue was
     * over its limit, if any, once it is not; the owner.
     */
    abstract void releaseHeldFrames();

    /** Runs the work the stages resumed from other threads, if any; the owner. */
    abstract void runResumes();

    /**
     * Hands the rest of the turn to the listener's handler executor.
     * @param events the turn's events
     * @return whether the executor took it (a refusal failed the connection)
     */
    abstract boolean handOff(int events);

    /** @param data bytes read, passed inbound: through the stages, or to the handler */
    abstract void inboundData(ByteBuffer data);

    /** The input ended (the peer's FIN): passed inbound, through the stages, or to the handler. */
    abstract void inboundHangup();

    /** Queued bytes were sent after the socket had no room: the handler hears it can write more. */
    abstract void inboundWritable();

    /** @return whether the handler's onOpen was called: only then do its onError and onClose follow */
    abstract boolean handlerOpened();

    /** The output ends gracefully (a close, or a FIN): the stages hear of it once, and may write a last time. */
    abstract void endOutput();

    /**
     * Bytes going out on the owning thread: framed if the listener frames them, through the stages, if any, to the socket.
     * @param owned whether the buffer is a copy the write queue may keep
     */
    abstract void outbound(ByteBuffer data, boolean owned);

    /** @param error why the connection failed (a native call, a stage): it is aborted, and the handler's onError told */
    abstract void failed(Throwable error);
}
