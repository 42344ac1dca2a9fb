package dev.sockstate.server.engine;

import dev.sockstate.server.client.ClientException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A client's connection's tie to its client: the connect's outcome, claimed once (connected, or
 * failed or timed out, whichever comes first), and the requests sent on it whose replies are owed,
 * oldest first, since replies come in the order the requests went out.
 */
final class ClientLink {

    private static final int CONNECTING = 0;

    private static final int OPEN = 1;

    private static final int FAILED = 2;

    /** The attempt it was opened by: its client, its pool slot (or its own future), its address. */
    final Connector.Attempt attempt;

    /** The address connected to, resolved. */
    final InetSocketAddress target;

    private final AtomicInteger outcome = new AtomicInteger(CONNECTING);

    /** The requests sent and not answered, oldest first; under the link's lock. */
    private final ArrayDeque<Request> owed = new ArrayDeque<>();

    /** Whether the connection ended: a request is no longer taken; under the link's lock. */
    private boolean ended;

    /** When the connection opened, {@link System#nanoTime()}. */
    volatile long openedAt;

    ClientLink(Connector.Attempt attempt, InetSocketAddress target) {
        this.attempt = attempt;
        this.target = target;
    }

    /** @return whether the connect is claimed as succeeded now (false when it timed out first) */
    boolean claimOpen() {
        if (this.outcome.compareAndSet(CONNECTING, OPEN)) {
            this.openedAt = System.nanoTime();
            return true;
        }
        return false;
    }

    /** @return whether the connect is claimed as failed now (false when it succeeded first) */
    boolean claimFailed() {
        return this.outcome.compareAndSet(CONNECTING, FAILED);
    }

    /** @return whether the connection opened */
    boolean opened() {
        return this.outcome.get() == OPEN;
    }

    /** The connect succeeded; the owner, before the handler hears of the open. */
    void connected(TcpConnection connection) {
        this.attempt.connected(this, connection);
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
     * @return whether a request was owed it (and completed with a copy), false for a frame the handler gets
     */
    boolean reply(ByteBuffer frame) {
        Request request;
        synchronized (this) {
            request = this.owed.poll();
        }
        if (request == null) {
            return false;
        }
        ByteBuffer copy = ByteBuffer.allocate(frame.remaining()).put(frame);
        request.answered(copy.flip());
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
        ArrayDeque<Request> left;
        synchronized (this) {
            this.ended = true;
            left = new ArrayDeque<>(this.owed);
            this.owed.clear();
        }
        for (Request request : left) {
            request.failed(new ClientException(client, why, cause));
        }
    }

    /** A request owed a reply: completed once, by the reply, a failure or its timeout. */
    static final class Request extends CompletableFuture<ByteBuffer> {

        private final Client client;

        private final long sent = System.nanoTime();

        Request(Client client) {
            this.client = client;
        }

        void answered(ByteBuffer reply) {
            if (complete(reply)) {
                this.client.requestEnded("success", System.nanoTime() - this.sent);
            }
        }

        void failed(ClientException failure) {
            if (completeExceptionally(failure)) {
                this.client.requestEnded("failed", System.nanoTime() - this.sent);
            }
        }

        void timedOut(ClientException failure) {
            if (completeExceptionally(failure)) {
                this.client.requestEnded("timeout", System.nanoTime() - this.sent);
            }
        }
    }
}
