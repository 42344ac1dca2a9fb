package dev.sockstate.server.engine;

import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.engine.turn.Handoff;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
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
    private final ArrayDeque<ClientRequest> owed = new ArrayDeque<>();

    /** How many are owed, for any thread to read: the owner sets it, with no fence, as it changes {@link #owed}. */
    @SuppressWarnings("unused")
    private int owedCount;

    /** Whether the connection ended: a request is no longer owed; the owner sets it, the others read it. */
    private volatile boolean ended;

    /** Whether the client's sweep asked the owner to check the oldest request's time. */
    private volatile boolean expiryAsked;

    /** Requests other threads handed over, encoded, newest first; closed ({@link Handoff#close}) once the connection ended. */
    @SuppressWarnings("unused")
    private volatile Handoff<ClientRequest> handed;

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
    boolean send(TcpConnection connection, ClientRequest request, Object message) {
        if (connection.callsHere()) {
            return owe(connection, request, message);
        }
        request.carried = ClientRequest.copyOf(connection.listener.writeMessage(message));
        if (!Handoff.pushUnlessClosed(HANDED, this, request)) {
            return false;
        }
        connection.requestRun();
        return true;
    }

    /** Owes a request and writes it, in that order; the owner. */
    private boolean owe(TcpConnection connection, ClientRequest request, Object message) {
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
        Handoff<ClientRequest> node = Handoff.takeAllOpen(HANDED, this);
        try {
            for (; node != null; node = node.next) {
                ClientRequest request = node.item;
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
            for (Handoff<ClientRequest> rest = (node != null) ? node.next : null; rest != null; rest = rest.next) {
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
        ClientRequest request = this.owed.poll();
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
        ClientRequest oldest = this.owed.peek();
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
        ArrayDeque<ClientRequest> left = new ArrayDeque<>();
        for (ClientRequest request : this.owed) {
            if (request.claim()) {
                left.add(request);
            }
        }
        this.owed.clear();
        OWED_COUNT.setOpaque(this, 0);
        for (Handoff<ClientRequest> node = Handoff.close(HANDED, this); node != null; node = node.next) {
            node.item.carried = null;
            if (node.item.claim()) {
                left.add(node.item);
            }
        }
        for (ClientRequest request : left) {
            request.failed(new ClientException(client, why, cause));
        }
    }
}
