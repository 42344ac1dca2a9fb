package dev.sockstate.server.engine;

import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.client.ReplyHandler;
import dev.sockstate.server.engine.turn.RunClock;
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

    /** The requests sent and not answered, oldest first; under the link's lock. */
    private final ArrayDeque<Request> owed = new ArrayDeque<>();

    /** Whether the connection ended: a request is no longer taken; under the link's lock. */
    private boolean ended;

    /** When the connection opened, {@link System#nanoTime()}. */
    volatile long openedAt;

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
     * Sends a request, owed a reply from now: both under the lock, so that requests from several
     * threads are owed in the order they were written.
     * @return false when the connection ended first (nothing was sent)
     */
    boolean send(TcpConnection connection, Request request, Object message) {
        synchronized (this) {
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
            return true;
        }
    }

    /**
     * @param frame a frame the connection read
     * @return whether a request was owed it (and was answered with it), false for a frame the handler gets
     */
    boolean reply(ByteBuffer frame) {
        Request request;
        boolean claimed;
        synchronized (this) {
            request = this.owed.poll();
            if (request == null) {
                return false;
            }
            // One that timed out stays owed its reply, which, coming late, completes nothing.
            claimed = request.claim();
        }
        if (claimed) {
            request.answered(frame);
        }
        return true;
    }

    /**
     * Fails the oldest request owed if it waited longer than the timeout (its reply may never come, and
     * a later one would answer it: the caller closes the connection).
     * @return whether it timed out now
     */
    boolean expire(long now, long timeoutNanos, Client client) {
        Request oldest;
        synchronized (this) {
            oldest = this.owed.peek();
            // It stays owed its reply, which, coming late, completes nothing.
            if (oldest == null || now - oldest.sent < timeoutNanos || !oldest.claim()) {
                return false;
            }
        }
        oldest.timedOut(client.timedOut(this));
        return true;
    }

    /** @return the requests owed now */
    int owed() {
        synchronized (this) {
            return this.owed.size();
        }
    }

    /** The connection ended: each owed request fails with the reason given. */
    void end(String client, String why, Throwable cause) {
        ArrayDeque<Request> left = new ArrayDeque<>();
        synchronized (this) {
            this.ended = true;
            for (Request request : this.owed) {
                if (request.claim()) {
                    left.add(request);
                }
            }
            this.owed.clear();
        }
        for (Request request : left) {
            request.failed(new ClientException(client, why, cause));
        }
    }

    /**
     * A request owed a reply: ended once, by the reply, a failure or its timeout, whichever claims it
     * first (under the link's lock while it is owed there, so that no atomic instruction a request is
     * needed; before it was sent, by the sender alone), and counted before whoever waits for it hears
     * of it, so that they find it counted.
     */
    abstract static class Request {

        final Client client;

        /**
         * When it was sent, {@link System#nanoTime()}: made by a handler on a worker, the clock of the
         * read at hand ({@link RunClock#clock()}), as its reply's end is the clock of the read that brought it.
         */
        final long sent = RunClock.clock();

        /** Whether its end was claimed: by one outcome only; under the link's lock while it is owed there. */
        private boolean claimed;

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
            try {
                reply(reply);
            }
            finally {
                released();
            }
        }

        /** @param failure why it failed: the connection ended, or it could not be sent; once claimed, or before it was owed */
        final void failed(ClientException failure) {
            this.claimed = true;
            ended("failed");
            failWith(failure);
        }

        /** @param failure the timeout's; once claimed */
        final void timedOut(ClientException failure) {
            ended("timeout");
            failWith(failure);
        }

        /** The request could not be written (its message did not encode): not counted, it was never sent (nor owed). */
        final void notSent(RuntimeException failure) {
            if (claim()) {
                failWith(failure);
            }
        }

        private void failWith(Throwable failure) {
            try {
                fail(failure);
            }
            finally {
                released();
            }
        }

        /** The connection that awaited it hears that it ended, once whoever took its outcome did what it does. */
        private void released() {
            if (this.awaitedBy != null) {
                this.awaitedBy.replyCame();
            }
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

    /** A request whose reply frame is handed to a {@link ReplyHandler} as read. */
    static final class Handed extends Request {

        private final ReplyHandler handler;

        Handed(Client client, ReplyHandler handler) {
            super(client);
            this.handler = handler;
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
