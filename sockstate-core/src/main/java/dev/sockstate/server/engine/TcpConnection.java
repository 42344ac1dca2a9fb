package dev.sockstate.server.engine;

import dev.sockstate.port.Events;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.server.Stage;
import dev.sockstate.server.engine.HandlerCalls.Callback;
import dev.sockstate.server.engine.turn.Runner;
import dev.sockstate.server.engine.turn.SocketTurn;
import dev.sockstate.server.engine.turn.Worker;
import java.nio.ByteBuffer;

/**
 * An accepted TCP connection and its turn: what it does with each notification, from the socket to
 * the handler and back (what a handler sees of it beside the traffic is
 * {@link AcceptedConnection}'s). Reads go into the running thread's buffer and inbound, through the
 * connection's {@link Pipeline} when the listener has stages, to the handler; the handler's writes
 * go outbound, through the pipeline, to the {@link WritePath}. Fields without {@code volatile} are
 * touched only by the thread that owns the connection.
 * <p>
 * Level-triggered, a turn reads once and re-arms. Edge-triggered, a turn reads until the socket
 * would block, or, in the exclusive edge mode on a backend that raises an edge for every arrival
 * (epoll), until a read comes back shorter than the buffer (the socket was drained then; later data
 * raises a new edge) unless the notification carried a hang-up, after which it reads until end of
 * stream, since data and FIN can arrive in one read. Where edges only follow a change after the
 * registration was enabled (Windows), each enable is followed by a turn that reads until would-block.
 * Either way a turn reads at most {@link SocketTurn#TURN_BUDGET} times, then yields to other sockets.
 * With a handler executor, every turn with something for the handler runs there, reads included,
 * and {@code onClose} follows there too ({@link HandlerExecution}).
 */
final class TcpConnection extends AcceptedConnection {

    /** Other threads' writes a round of a turn takes at most: each may be a send of its own. */
    static final int REQUESTS_PER_ROUND = 64;

    /** The way out: sends, queues what the socket does not take, takes other threads' writes. */
    final WritePath output = new WritePath(this);

    /** The stages between socket and handler, or {@code null} for a listener without stages. */
    private Pipeline pipeline;

    /** The unfinished frame of a listener with framing, kept across reads; {@code null} when there is none. */
    ByteBuffer partialFrame;


    /** Whether the handler's onOpen was called without stages (with, the pipeline knows). */
    private boolean opened;

    private boolean inputClosed;

    private boolean readPaused;

    private boolean wouldBlock;

    private boolean inputDrained;

    /** Whether an error notification came with no error pending (SO_ERROR read 0): the next one fails the connection. */
    private boolean errorUnnamed;

    /** Whether the stages were told that the output ends ({@link #endOutput()}). */
    private boolean outputEnded;


    /** Whether a stage holds the input: nothing is read until it releases it (a TLS engine's tasks run). */
    private boolean inputHeld;

    /** Whether a stage released the input since the last read: the next turn reads, edge or level. */
    private boolean inputReleased;

    /**
     * Whether a hang-up was notified while the input was held: it is read (after what came before it)
     * once the input is released, and not watched meanwhile, which a level trigger would report again
     * and again.
     */
    private boolean hangupWhileHeld;

    /**
     * Whether a graceful stop's close lingers: what arrived before the stop is answered and the FIN
     * sent; what the peer sent meanwhile is read and dropped until its own FIN, so that the close
     * resets nothing in flight. Read by the stop's thread, which aborts a peer that lingers too long.
     */
    private volatile boolean lingering;

    TcpConnection(Listener listener, long handle) {
        super(listener, handle);
        touch();
    }

    /** @param runner the accepting thread's, which owns the connection: makes its stages, passes the open inbound, arms it */
    void open(Runner runner) {
        if (this.listener.tls != null || !this.listener.stageMakers.isEmpty()) {
            try {
                this.pipeline = new Pipeline(this, this.listener.handler, this.listener.tls, this.listener.stageMakers);
            }
            catch (Throwable ex) {
                // The listener goes on: only this connection, which never opened, is aborted.
                this.listener.handlerFailed(this, "its stages could not be made; closing the connection", ex);
                requestClose(true);
                release(runner);
                return;
            }
        }
        HandlerExecution execution = this.listener.execution;
        if (execution != null && runner.isWorker() && execution.handOff(this, 0, true)) {
            return;
        }
        turnHandedOver(runner, 0, true);
        // The acceptor's turn goes on with the next connection: what this one's enable raises is a turn of its own.
        eventsToNextTurn();
        release(runner);
    }

    /**
     * A turn on the thread it was handed to (a handler executor's), or the open on the accepting one.
     * @param opening whether the turn opens the connection
     * @return true to let go now, false when the ownership was handed on
     */
    boolean turnHandedOver(Runner runner, int events, boolean opening) {
        if (!opening) {
            return handle(runner, events);
        }
        if (!isAborting()) {
            inboundOpen();
        }
        this.output.shutdownIfDue();
        return true;
    }

    /** @return whether a turn for these events may call the handler (or its stages), which then runs on its executor */
    private boolean hasHandlerWork(int events) {
        return events != 0 || hasRefusal() || this.output.hasRequests() || this.output.isPending() || isDraining()
                || this.pipeline != null && this.pipeline.hasResumes();
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
        HandlerExecution execution = this.listener.execution;
        if (execution != null && runner.isWorker() && hasHandlerWork(events)) {
            return !execution.handOff(this, events, false);
        }
        if (hasRefusal()) {
            failed(takeRefusal());
            return true;
        }
        this.output.takeRequests(REQUESTS_PER_ROUND);
        if (this.pipeline != null) {
            this.pipeline.runResumes();
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
                this.listener.handler.call(Callback.WRITABLE, this, null, null);
            }
            if (this.readPaused && !this.output.isPending() && this.trigger.isEdge()) {
                events |= Events.IN;
            }
        }
        if (this.inputHeld && (events & Events.HANGUP) != 0) {
            this.hangupWhileHeld = true;
        }
        // Held input is read only to learn an error no SO_ERROR named (what the read brings is held by the stage).
        boolean mayRead = !this.inputHeld || (events & Events.ERR) != 0;
        if ((events & (Events.IN | Events.HANGUP)) != 0 && !this.inputClosed && !isClosing() && mayRead) {
            if (!read(runner, events, hangupAlone, false)) {
                return false;
            }
        }
        else if (isDraining() && !this.inputDrained && !this.inputClosed && !this.inputHeld && !this.output.isPending()) {
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
        boolean shortReadDrains = this.listener.settings.exclusiveEdge() && this.listener.changeRules.edgeOnEveryArrival()
                && (this.listener.settings.events() & Events.HANGUP) != 0 && (events & Events.HANGUP) == 0;
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
            if (isClosing() && !(untilWouldBlock && isDraining()) || this.inputClosed || this.inputHeld
                    || this.output.isOverLimit(this.listener.settings.maxPendingWriteBytes())) {
                return true;
            }
            if (!untilWouldBlock && (!edge || (shortReadDrains && read < bytes.capacity()))) {
                return true;
            }
        }
    }

    /** @return where a read goes: the runner's native buffer, or, for a thread lent no memory, the heap (the handler sees the same) */
    private ByteBuffer room(NativeBuffer buffer) {
        return (buffer != null) ? buffer.buffer() : ByteBuffer.allocate(Math.min(this.listener.group.settings.readBufferSize(), 64 * 1024));
    }

    /** @return one recv's result, into the native buffer or, without one, into the heap room */
    private int receive(NativeBuffer buffer, ByteBuffer bytes) throws NativeIoException {
        return (buffer != null) ? this.sockets.recv(this.handle, buffer) : this.sockets.recv(this.handle, bytes);
    }

    private void hungUp() {
        this.inputClosed = true;
        if (this.pipeline != null) {
            this.pipeline.hangup();
        }
        else {
            this.listener.handler.call(Callback.HANGUP, this, null, null);
        }
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
            this.listener.handler.call(Callback.OPEN, this, null, null);
        }
    }

    /** @return whether the handler's onOpen was called: only then do its onError and onClose follow */
    private boolean handlerOpened() {
        return (this.pipeline != null) ? this.pipeline.handlerOpened() : this.opened;
    }

    /** @param data bytes read, passed inbound: through the stages, or to the handler */
    void inboundData(ByteBuffer data) {
        if (this.pipeline != null) {
            this.pipeline.data(data);
        }
        else {
            toHandler(data);
        }
    }

    /** @param data bytes that passed the stages: to the handler, cut into frames if the listener frames them */
    void toHandler(ByteBuffer data) {
        Framer framer = this.listener.framer;
        if (framer != null) {
            framer.inbound(this, data);
        }
        else {
            this.listener.handler.call(Callback.DATA, this, data, null);
        }
    }

    @Override
    protected int nextFilter() {
        int filter = 0;
        if (this.lingering) {
            return this.inputClosed ? 0 : this.listener.settings.events();
        }
        if (!this.inputClosed && !isClosing()) {
            boolean paused = this.output.isOverLimit(this.listener.settings.maxPendingWriteBytes());
            if (paused && !this.readPaused) {
                this.observer.readPaused();
            }
            this.readPaused = paused;
            if (!this.readPaused && !this.inputHeld) {
                filter |= this.listener.settings.events();
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
        if (this.output.isPending() || !(this.inputDrained || this.inputClosed || !isDraining())) {
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

    /** The output ends gracefully (a close, or a FIN): the stages hear of it once, and may write a last time. */
    void endOutput() {
        if (!this.outputEnded && this.pipeline != null) {
            this.outputEnded = true;
            this.pipeline.outputEnding();
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

    @Override
    public boolean takesInput() {
        return !isAborting() && (!isClosing() || isDraining());
    }

    /** @return whether a stage holds the input now; for tests */
    boolean holdsInput() {
        return this.inputHeld;
    }

    /** @return the first stage (TLS's, when the listener has TLS), {@code null} without stages; for tests */
    Stage firstStage() {
        return (this.pipeline != null) ? this.pipeline.stage(0) : null;
    }

    @Override
    protected void finish() {
        closeSocket();
        this.output.release();
        this.partialFrame = null;
        this.listener.connectionFinished();
        HandlerExecution execution = this.listener.execution;
        if (execution != null && (this.pipeline != null || handlerOpened()) && Worker.onWorkerThread()) {
            // Not on a worker (a stop that ends the connection runs it where it is).
            execution.afterEnd(this::ended);
        }
        else {
            ended();
        }
    }

    /** The stages and the handler hear that the connection is closed. */
    private void ended() {
        if (this.pipeline != null) {
            this.pipeline.closed();
        }
        if (handlerOpened()) {
            this.listener.handler.call(Callback.CLOSE, this, null, null);
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
        Framer framer = this.listener.framer;
        if (framer != null) {
            framer.outbound(this, data);
        }
        else {
            toSocket(data, owned);
        }
    }

    /**
     * Bytes the handler's side sent, framed if the listener frames them: through the stages, if any, to the socket.
     * @param owned whether the buffer is a copy the write queue may keep
     */
    void toSocket(ByteBuffer data, boolean owned) {
        if (this.pipeline != null) {
            this.pipeline.write(data);
        }
        else {
            this.output.send(data, owned);
        }
    }

    @Override
    public long pendingWriteBytes() {
        ByteBuffer gathered = this.output.gathered;
        boolean gathering = gathered != null && isOwnedByCurrentThread();
        return this.output.pendingBytes() + (gathering ? gathered.position() : 0);
    }

    @Override
    public void shutdownOutput() {
        this.output.shutdownOutput();
    }

    /** @param error why the connection failed (a native call, a stage): it is aborted, and the handler's onError told */
    void failed(Throwable error) {
        if (!isAborting()) {
            requestClose(true);
            if (handlerOpened()) {
                this.listener.handler.call(Callback.ERROR, this, null, error);
            }
        }
    }

    /**
     * The peer's bytes were refused (they do not frame, or do not read as the handler's message
     * type): the handler's onError hears why and may answer (a protocol error reply), then the
     * connection closes once that answer is sent; nothing more is read from it.
     * @param why what was wrong
     */
    void rejected(Exception why) {
        if (isClosing() && !isDraining()) {
            // Closing already, as asked: the handler heard of it. A graceful stop's drain is ended below.
            return;
        }
        if (handlerOpened()) {
            this.listener.handler.call(Callback.ERROR, this, null, why);
        }
        requestClose(false);
    }
}
