package dev.sockstate.server.engine;

import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.client.ReplyHandler;
import dev.sockstate.server.engine.turn.Handoff;
import dev.sockstate.server.engine.turn.RunClock;
import dev.sockstate.server.engine.turn.Worker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A client's connection's tie to its client: the connect's outcome, claimed once (connected, or
 * failed or timed out, whichever comes first), the open (once the connection's stages let it
 * through to the handler: a TLS handshake fails a connect), and the requests sent on it whose replies are owed,
 * oldest first, since replies come in the order the requests went out.
 * <p>
 * The requests owed belong to the connection's owner, as its writes do: the thread in the
 * connection's turn, or, outside it, the only worker of its port ({@link TcpConnection#onItsOnlyWorker()}),
 * which alone runs those turns. The owner owes a request as it writes it, so that the order owed is
 * the order written, with no lock. Another thread hands its request over, encoded, and the owner
 * owes and writes it in its next turn; a request timeout is checked there too, when the client's
 * sweep asks for it.
 */
final class ClientLink {

    private static final int CONNECTING = 0;

    private static final int CONNECTED = 1;

    private static final int OPEN = 2;

    private static final int FAILED = 3;

    /** The attempt it was opened by: its client, its pool slot (or its own future), its address. */
    final Connector.Attempt attempt;

    /** The address connected to, resolved. */
    final InetSocketAddress target;

    /** The host as the client's address names it: a name, or a literal address. */
    final String host;

    private final AtomicInteger outcome = new AtomicInteger(CONNECTING);

    /** The requests sent and not answered, oldest first; the owner's. */
    private final ArrayDeque<Request> owed = new ArrayDeque<>();

    /** How many are owed, for any thread to read: the owner sets it, with no fence, as it changes {@link #owed}. */
    @SuppressWarnings("unused")
    private int owedCount;

    /** Whether the connection ended: a request is no longer owed; the owner sets it, the others read it. */
    private volatile boolean ended;

    /** Whether the client's sweep asked the owner to check the oldest request's time. */
    private volatile boolean expiryAsked;

    /** Requests other threads handed over, encoded, newest first; closed ({@link Handoff#close}) once the connection ended. */
    @SuppressWarnings("unused")
    private volatile Handoff<Request> handed;

    /** When the connection opened, {@link System#nanoTime()}. */
    volatile long openedAt;

    private static final VarHandle HANDED;

    private static final VarHandle OWED_COUNT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HANDED = lookup.findVarHandle(ClientLink.class, "handed", Handoff.class);
            OWED_COUNT = lookup.findVarHandle(ClientLink.class, "owedCount", int.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    ClientLink(Connector.Attempt attempt, InetSocketAddress target, String host) {
        this.attempt = attempt;
        this.target = target;
        this.host = host;
    }

    /** @return whether the connect is claimed as succeeded now (false when it timed out first) */
    boolean claimConnected() {
        return this.outcome.compareAndSet(CONNECTING, CONNECTED);
    }

    /** @return whether the connect is claimed as failed now (false when it succeeded first) */
    boolean claimFailed() {
        return this.outcome.compareAndSet(CONNECTING, FAILED);
    }

    /** @return whether the connection opened: its handler heard of it */
    boolean opened() {
        return this.outcome.get() == OPEN;
    }

    /**
     * The connection opens (connected, and its stages, TLS's handshake say, let the open through): it
     * serves the client from now on; the owner, as the handler is about to hear of the open.
     */
    void opening(TcpConnection connection) {
        if (this.outcome.compareAndSet(CONNECTED, OPEN)) {
            this.openedAt = System.nanoTime();
            this.attempt.connected(this, connection);
        }
    }

    /** The connection is finished; its owner. Owed requests fail, and its client learns of it. */
    void finished(TcpConnection connection) {
        Throwable failure = connection.failure();
        this.attempt.finished(this, connection, failure);
    }

    /**
     * Sends a request, owed a reply from now: on the owner at once; from another thread, encoded here
     * and handed over to the owner, who owes and writes it in its next turn.
     * @return false when the connection ended first (nothing was sent)
     */
    boolean send(TcpConnection connection, Request request, Object message) {
        if (connection.isOwnedByCurrentThread() || connection.onItsOnlyWorker()) {
            return owe(connection, request, message);
        }
        ByteBuffer encoded = connection.listener.writeMessage(message);
        request.carried = ByteBuffer.allocate(encoded.remaining()).put(encoded).flip();
        if (!Handoff.pushUnlessClosed(HANDED, this, request)) {
            return false;
        }
        connection.requestRun();
        return true;
    }

    /** Owes a request and writes it, in that order; the owner. */
    private boolean owe(TcpConnection connection, Request request, Object message) {
        if (this.ended) {
            return false;
        }
        this.owed.add(request);
        try {
            connection.send(message);
        }
        catch (RuntimeException ex) {
            this.owed.removeLast();
            throw ex;
        }
        OWED_COUNT.setOpaque(this, this.owed.size());
        return true;
    }

    /** @return whether the owner has something to do in its turn: requests handed over, or a timeout to check; any thread */
    boolean hasWork() {
        return this.expiryAsked || Handoff.waitsOpen(HANDED, this);
    }

    /**
     * Owes and writes the requests other threads handed over, oldest first, and checks the oldest
     * request's time when the sweep asked; the owner, in the connection's turn.
     */
    void work(TcpConnection connection) {
        Handoff<Request> node = Handoff.takeAllOpen(HANDED, this);
        try {
            for (; node != null; node = node.next) {
                Request request = node.item;
                ByteBuffer encoded = request.carried;
                request.carried = null;
                if (this.ended) {
                    request.failed(request.client.closedBeforeSent(connection));
                    continue;
                }
                this.owed.add(request);
                OWED_COUNT.setOpaque(this, this.owed.size());
                connection.write(encoded);
            }
        }
        finally {
            // A write that threw (which fails the connection) leaves those after it unsent: they fail, not wait.
            for (Handoff<Request> rest = (node != null) ? node.next : null; rest != null; rest = rest.next) {
                rest.item.carried = null;
                rest.item.failed(rest.item.client.closedBeforeSent(connection));
            }
        }
        if (this.expiryAsked) {
            this.expiryAsked = false;
            Client client = this.attempt.client();
            if (expire(System.nanoTime(), client.requestTimeoutNanos(), client)) {
                // The replies that still come could no longer be told apart: the connection starts again.
                connection.closeFailed(client.timedOut(this));
            }
        }
    }

    /**
     * The client's sweep asks the owner to check the oldest request's time, when any is owed; any thread.
     * @param connection the link's connection, whose turn runs for it
     */
    void askExpiry(TcpConnection connection) {
        if ((int) OWED_COUNT.getOpaque(this) > 0) {
            this.expiryAsked = true;
            connection.requestRun();
        }
    }

    /**
     * @param frame a frame the connection read
     * @return whether a request was owed it (and was answered with it), false for a frame the handler gets; the owner
     */
    boolean reply(ByteBuffer frame) {
        Request request = this.owed.poll();
        if (request == null) {
            return false;
        }
        OWED_COUNT.setOpaque(this, this.owed.size());
        // One that timed out is owed its reply still, which, coming late, completes nothing.
        if (request.claim()) {
            request.answered(frame);
        }
        return true;
    }

    /**
     * Fails the oldest request owed if it waited longer than the timeout (its reply may never come, and
     * a later one would answer it: the caller closes the connection); the owner.
     * @return whether it timed out now
     */
    boolean expire(long now, long timeoutNanos, Client client) {
        Request oldest = this.owed.peek();
        // It stays owed its reply, which, coming late, completes nothing.
        if (oldest == null || now - oldest.sent < timeoutNanos || !oldest.claim()) {
            return false;
        }
        oldest.timedOut(client.timedOut(this));
        return true;
    }

    /** @return the requests owed now, one more while any handed over is not owed yet; any thread */
    int owed() {
        return (int) OWED_COUNT.getOpaque(this) + (Handoff.waitsOpen(HANDED, this) ? 1 : 0);
    }

    /**
     * The connection ended: each owed request fails with the reason given, as do those handed over and
     * not owed yet, and any handed over from now on is refused; the owner as it finishes the connection (or a
     * stop, once the port's workers are gone).
     */
    void end(String client, String why, Throwable cause) {
        this.ended = true;
        ArrayDeque<Request> left = new ArrayDeque<>();
        for (Request request : this.owed) {
            if (request.claim()) {
                left.add(request);
            }
        }
        this.owed.clear();
        OWED_COUNT.setOpaque(this, 0);
        for (Handoff<Request> node = Handoff.close(HANDED, this); node != null; node = node.next) {
            node.item.carried = null;
            if (node.item.claim()) {
                left.add(node.item);
            }
        }
        for (Request request : left) {
            request.failed(new ClientException(client, why, cause));
        }
    }

    /**
     * A request owed a reply: ended once, by the reply, a failure or its timeout, whichever claims it
     * first (by the link's owner once it is owed there or handed over, so that no atomic instruction a
     * request is needed; before, by the sender alone), and counted before whoever waits for it hears of
     * it, so that they find it counted.
     */
    abstract static class Request {

        final Client client;

        /**
         * When it was sent, {@link System#nanoTime()}: made by a handler on a worker, the clock of the
         * read at hand ({@link RunClock#clock()}), as its reply's end is the clock of the read that brought it.
         */
        final long sent = RunClock.clock();

        /** Whether its end was claimed: by one outcome only; by the link's owner while it is owed there. */
        private boolean claimed;

        /**
         * Bytes it carries to another thread, a copy: its own, encoded, while it is handed over to the
         * link's owner; its reply's while that is handed over to the connection that awaits it; else {@code null}.
         */
        ByteBuffer carried;

        /** Its failure while that is handed over to the connection that awaits it; else {@code null}. */
        Throwable carriedFailure;

        /** The accepted connection whose handler made it on a worker, which awaits its end; or {@code null}. */
        private TcpConnection awaitedBy;

        Request(Client client) {
            this.client = client;
        }

        /** @param connection the accepted connection whose handler makes the request, before it is sent */
        final void awaitedBy(TcpConnection connection) {
            this.awaitedBy = connection;
            connection.replyAwaited();
        }

        /** @return whether this claims its end now: false when another outcome did first */
        final boolean claim() {
            if (this.claimed) {
                return false;
            }
            this.claimed = true;
            return true;
        }

        /** @param reply the reply frame, a view of the connection's read buffer valid during the call; once claimed */
        final void answered(ByteBuffer reply) {
            ended("success");
            outcome(reply, null);
        }

        /** @param failure why it failed: the connection ended, or it could not be sent; once claimed, or before it was owed */
        final void failed(ClientException failure) {
            this.claimed = true;
            ended("failed");
            outcome(null, failure);
        }

        /** @param failure the timeout's; once claimed */
        final void timedOut(ClientException failure) {
            ended("timeout");
            outcome(null, failure);
        }

        /** The request could not be written (its message did not encode): not counted, it was never sent (nor owed). */
        final void notSent(RuntimeException failure) {
            if (claim()) {
                outcome(null, failure);
            }
        }

        /**
         * Hands the outcome on, here; then the connection that awaited it hears that it ended.
         * @param reply the reply frame, valid during the call; {@code null} for a failure
         * @param failure why it failed; {@code null} for a reply
         */
        void outcome(ByteBuffer reply, Throwable failure) {
            handOn(reply, failure);
        }

        /** Hands the outcome on and tells the connection that awaited it, here. */
        final void handOn(ByteBuffer reply, Throwable failure) {
            try {
                if (reply != null) {
                    reply(reply);
                }
                else {
                    fail(failure);
                }
            }
            finally {
                if (this.awaitedBy != null) {
                    this.awaitedBy.replyCame();
                }
            }
        }

        /** @return the accepted connection whose handler made it on a worker, which awaits its end; or {@code null} */
        final TcpConnection awaitedBy() {
            return this.awaitedBy;
        }

        /**
         * It ended this way: counted and timed. One handed to a handler and answered in a run is counted
         * with the others that run answers, as the run ends; one awaited by a future is counted before
         * the future completes, so that whoever it wakes finds it counted.
         */
        private void ended(String outcome) {
            long nanos = RunClock.clock() - this.sent;
            if (!(this instanceof Handed) || !outcome.equals("success") || !RunClock.sumsRequest(this.client.side(), nanos)) {
                this.client.requestEnded(outcome, nanos);
            }
        }

        /** Hands the reply on; once. */
        abstract void reply(ByteBuffer reply);

        /** Hands the failure on; once. */
        abstract void fail(Throwable failure);
    }

    /** A request whose reply completes a future with a copy of the frame. */
    static final class Awaited extends Request {

        final CompletableFuture<ByteBuffer> reply = new CompletableFuture<>();

        Awaited(Client client) {
            super(client);
        }

        @Override
        void reply(ByteBuffer frame) {
            this.reply.complete(ByteBuffer.allocate(frame.remaining()).put(frame).flip());
        }

        @Override
        void fail(Throwable failure) {
            this.reply.completeExceptionally(failure);
        }
    }

    /**
     * A request whose reply frame is handed to a {@link ReplyHandler} as read. One made by an accepted
     * connection's handler on a worker has its outcome handed on as that connection's handler calls
     * are, never beside them: at once when it comes on the thread that alone runs that connection's
     * turns, else (another worker's, a timer's) copied and handed over to the connection's next turn.
     */
    static final class Handed extends Request {

        private final ReplyHandler handler;

        Handed(Client client, ReplyHandler handler) {
            super(client);
            this.handler = handler;
        }

        @Override
        void outcome(ByteBuffer reply, Throwable failure) {
            TcpConnection by = awaitedBy();
            if (by == null || by.callsHere()) {
                inCallsOf(by, reply, failure);
                return;
            }
            this.carried = (reply != null) ? ByteBuffer.allocate(reply.remaining()).put(reply).flip() : null;
            this.carriedFailure = failure;
            if (!by.handOverOutcome(this)) {
                by.handOnLate(this);
            }
        }

        /** Hands on the outcome handed over; the connection that awaits it, in its turn (or as it finishes). */
        void handOnHere() {
            ByteBuffer reply = this.carried;
            Throwable failure = this.carriedFailure;
            this.carried = null;
            this.carriedFailure = null;
            inCallsOf(awaitedBy(), reply, failure);
        }

        /** Hands the outcome on as a call of the connection's: requests its handler makes now are tied to it too. */
        private void inCallsOf(TcpConnection by, ByteBuffer reply, Throwable failure) {
            Object outer = Worker.handling(by);
            try {
                handOn(reply, failure);
            }
            finally {
                Worker.handling(outer);
            }
        }

        @Override
        void reply(ByteBuffer frame) {
            try {
                this.handler.onReply(frame, null);
            }
            catch (VirtualMachineError ex) {
                throw ex;
            }
            catch (RuntimeException | Error ex) {
                this.client.handlerFailed("on its reply", ex);
            }
        }

        @Override
        void fail(Throwable failure) {
            try {
                this.handler.onReply(null, failure);
            }
            catch (VirtualMachineError ex) {
                throw ex;
            }
            catch (RuntimeException | Error ex) {
                this.client.handlerFailed("on its request's failure (" + failure + ")", ex);
            }
        }
    }
}
