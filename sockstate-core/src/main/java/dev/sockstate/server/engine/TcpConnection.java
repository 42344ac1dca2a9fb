package dev.sockstate.server.engine;

import dev.sockstate.server.Stage;
import dev.sockstate.server.engine.HandlerCalls.Callback;
import dev.sockstate.server.engine.turn.Runner;
import dev.sockstate.server.engine.turn.SocketHome;
import dev.sockstate.server.engine.turn.Worker;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * A TCP connection, accepted or a client's: the one route between its socket and its handler. A
 * client's ({@link ClientConnection}) begins with its connect under way. Bytes the turn
 * ({@link ConnectionTurn}) reads go inbound, through the connection's {@link Pipeline} when the
 * listener has stages, then through the listener's framing, to the handler, which the listener
 * calls ({@link HandlerCalls}); the handler's writes go outbound the same way back, framed, through
 * the stages, to the {@link WritePath}. The open, the hang-up, errors and the close take the same
 * route. What a handler sees of the connection beside the traffic is {@link AcceptedConnection}'s.
 * With a handler executor, {@code onClose} follows on the executor too ({@link HandlerExecution}).
 */
class TcpConnection extends ConnectionTurn {

    /** The stages between socket and handler, or {@code null} for a listener without stages. */
    private Pipeline pipeline;

    /**
     * With framing, the {@link Framer}'s state for this connection, touched by it alone (LayeringTest),
     * held here so that a connection keeps no object of its own for it: the unfinished frame, kept
     * across reads, or the rest of a read held back ({@code null} when there is none), and what it is; whether one read's frames are being handed out,
     * so that their replies are gathered; and the replies gathered meanwhile, sent as one (a buffer
     * lent for that time, not kept).
     */
    ByteBuffer framingPartial;

    /**
     * What {@link #framingPartial} holds: part of one frame searched through, part of one frame whose
     * length was told, or the rest of a read held back while the connection's own queue was over its
     * limit (the {@link Framer}'s constants).
     */
    byte framingKept;

    /** See {@link #framingPartial}. */
    boolean framingGathers;

    /** See {@link #framingPartial}. */
    ByteBuffer framingReplies;

    /** Whether the handler's onOpen was called without stages (with, the pipeline knows). */
    private boolean opened;

    /** Whether the stages were told that the output ends ({@link #endOutput()}). */
    private boolean outputEnded;

    /** A connection served on the next port of its listener's group. */
    TcpConnection(Listener listener, long handle) {
        this(listener, listener.home(), handle);
    }

    /** A connection served where the home given says (the port of the listening socket that accepted it, say). */
    TcpConnection(Listener listener, SocketHome home, long handle) {
        this(listener, home, handle, null);
    }

    /**
     * @param link a client's connection's tie to its client: given by a {@link ClientConnection} only;
     * {@code null} for an accepted connection
     */
    TcpConnection(Listener listener, SocketHome home, long handle, ClientLink link) {
        super(listener, home, handle, link);
        touch();
    }

    /**
     * @return a client's connection's tie to its client (its requests, its place in the pool);
     * {@code null} when accepted
     */
    final ClientLink link() {
        ConnectionExtras extras = extrasIfMade();
        return (extras != null) ? extras.link : null;
    }

    /** An accepted connection is open from its first turn; a client's overrides this while its connect is under way. */
    @Override
    boolean connecting() {
        return false;
    }

    /** Never called: {@link #connecting()} is false. */
    @Override
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

    @Override
    boolean owesReplies() {
        ClientLink link = link();
        return link != null && link.owed() > 0;
    }

    @Override
    boolean awaitsReplies() {
        ConnectionExtras extras = extrasIfMade();
        return extras != null && extras.awaitsReplies();
    }

    /** A request its handler made (on a worker) for a client of the server is sent: its reply is awaited; any thread. */
    void replyAwaited() {
        extras().replyAwaited(onItsOnlyWorker());
    }

    /**
     * A request its handler made ended (answered, failed or timed out), and whoever took the reply
     * did what it does with it; any thread. The last one lets a graceful stop's close go on.
     */
    void replyCame() {
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
    Throwable failure() {
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
            this.pipeline = this.listener.newPipeline(this);
        }
        catch (Throwable ex) {
            // The listener goes on: only this connection, which never opened, is aborted.
            this.listener.handlerFailed(this, "its stages could not be made; closing the connection", ex);
            requestClose(true);
            return true;
        }
        if (runner.isWorker() && this.listener.handOff(this, 0, true)) {
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
        if (!opening) {
            return handle(runner, events);
        }
        if (!isAborting()) {
            inboundOpen();
        }
        this.output.shutdownIfDue();
        return true;
    }


    @Override
    void releaseHeldFrames() {
        this.listener.releaseHeldFrames(this);
    }

    /** Runs the work the stages resumed from other threads, if any; the owner. */
    @Override
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
            this.listener.call(Callback.OPEN, this, null, null);
        }
    }

    /** @return whether the handler's onOpen was called: only then do its onError and onClose follow */
    @Override
    boolean handlerOpened() {
        return (this.pipeline != null) ? this.pipeline.handlerOpened() : this.opened;
    }

    /** @param data bytes read, passed inbound: through the stages, or to the handler */
    @Override
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
        this.listener.toHandler(this, data);
    }

    /** The output ends gracefully (a close, or a FIN): the stages hear of it once, and may write a last time. */
    @Override
    void endOutput() {
        if (!this.outputEnded && this.pipeline != null) {
            this.outputEnded = true;
            this.pipeline.outputEnding();
        }
    }

    /** @return the first stage (TLS's, when the listener has TLS), {@code null} without stages; for tests */
    Stage firstStage() {
        return (this.pipeline != null) ? this.pipeline.stage(0) : null;
    }

    @Override
    protected void finish() {
        ClientLink link = link();
        if (link != null) {
            link.finished(this);
        }
        closeSocket();
        this.output.release();
        this.listener.dropFraming(this);
        this.listener.connectionFinished();
        if (this.listener.hasExecutor() && (this.pipeline != null || handlerOpened()) && Worker.onWorkerThread()) {
            // Not on a worker (a stop that ends the connection runs it where it is).
            this.listener.afterEnd(this::ended);
        }
        else {
            ended();
        }
    }

    /**
     * The stages and the handler hear that the connection is closed: after the outcomes of its
     * handler's requests that were handed over and not handed on yet, under the lock that those that
     * come from now on are handed on under ({@link ClientRequest.Handed}), so that none runs beside these calls.
     */
    private void ended() {
        ConnectionExtras extras = extrasIfMade();
        if (extras == null) {
            endCalls();
            return;
        }
        synchronized (extras.lastCalls) {
            ClientRequest.Handed.handOnLast(extras);
            endCalls();
        }
    }

    private void endCalls() {
        if (this.pipeline != null) {
            this.pipeline.closed();
        }
        if (handlerOpened()) {
            this.listener.call(Callback.CLOSE, this, null, null);
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
    @Override
    void outbound(ByteBuffer data, boolean owned) {
        this.listener.fromHandler(this, data, owned);
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
        return this.output.pendingBytes() + this.listener.gatheredBytes(this);
    }

    /** @return the bytes queued for the socket, for any thread (what a metrics scrape adds up) */
    long queuedBytes() {
        return this.output.pendingBytes();
    }

    @Override
    public void shutdownOutput() {
        this.output.shutdownOutput();
    }

    /** @param error why the connection failed (a native call, a stage): it is aborted, and the handler's onError told */
    @Override
    void failed(Throwable error) {
        keepFailure(error);
        if (!isAborting()) {
            requestClose(true);
            if (handlerOpened()) {
                this.listener.call(Callback.ERROR, this, null, error);
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
        keepFailure(why);
        if (handlerOpened()) {
            this.listener.call(Callback.ERROR, this, null, why);
        }
        requestClose(false);
    }
    @Override
    boolean hasResumes() {
        return this.pipeline != null && this.pipeline.hasResumes();
    }

    @Override
    boolean hasClientWork() {
        ConnectionExtras extras = extrasIfMade();
        return extras != null && extras.hasClientWork();
    }

    @Override
    void runClientWork() {
        ConnectionExtras extras = extrasIfMade();
        if (extras != null) {
            extras.runClientWork(this);
        }
    }

    @Override
    void clientTurnEnds() {
        ClientLink link = link();
        if (link != null) {
            link.turnEnds(this);
        }
    }

    @Override
    boolean writesPassAsIs() {
        return this.pipeline == null && this.listener.writesAsIs();
    }

    /**
     * @return whether the calling thread is the one that runs the connection's turns now: in its turn,
     * or its port's only worker ({@link #onItsOnlyWorker()})
     */
    boolean callsHere() {
        return isOwnedByCurrentThread() || onItsOnlyWorker();
    }

    @Override
    boolean handOff(int events) {
        return this.listener.handOff(this, events, false);
    }

    @Override
    void inboundHangup() {
        if (this.pipeline != null) {
            this.pipeline.hangup();
        }
        else {
            this.listener.call(Callback.HANGUP, this, null, null);
        }
    }

    @Override
    void inboundWritable() {
        this.listener.call(Callback.WRITABLE, this, null, null);
    }

}
