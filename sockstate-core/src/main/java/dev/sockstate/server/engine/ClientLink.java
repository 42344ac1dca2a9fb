package dev.sockstate.server.engine;

import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.framing.FramingException;
import dev.sockstate.server.engine.turn.Handoff;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

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
 * owes and writes it in its next turn.
 * <p>
 * A request's timeout counts from when its bytes were handed to the socket: one written from another
 * connection's turn waits in the worker's bundle until this connection's turn writes it, and is
 * stamped then. The owner applies the timeout when the client's sweep asks, at the end of its turn,
 * after it read the replies that came: a request with no reply then had none from the backend, and
 * the connection closes (its later replies could answer the wrong requests). When the owner does not
 * take its turn before the next sweep (a handler holds its worker), the sweep ends the requests due
 * itself, naming the held worker and blaming no backend, and the connection stays: a timeout bounds
 * every wait for a request that left. One that did not leave is not timed.
 */
final class ClientLink {

    /** What opened the connection (its client's connector, for a pool slot or a connection of its own): hears how it went. */
    interface Opener {

        /** The connect succeeded; the connection's owner, before its handler hears of the open. */
        void connected(ClientLink link, TcpConnection connection);

        /** The connection is finished: before it opened (the connect failed), or after; why it failed, {@code null} for a close. */
        void finished(ClientLink link, TcpConnection connection, @Nullable Throwable failure);

        /** @return the failures in a row before the attempt that opened it: 0 after a connection that stayed open */
        int failuresBefore();
    }

    private static final int CONNECTING = 0;

    private static final int CONNECTED = 1;

    private static final int OPEN = 2;

    private static final int FAILED = 3;

    /** What opened it: its pool slot (or its own future), the failures before. */
    final Opener opener;

    /** What its client's requests share: names, timeout, meters. */
    private final RequestTerms terms;

    /** The address connected to, resolved. */
    final InetSocketAddress target;

    /** The host as the client's address names it: a name, or a literal address. */
    final String host;

    private final AtomicInteger outcome = new AtomicInteger(CONNECTING);

    /** The oldest request sent and not answered, the head of their chain; the owner's, which the sweep reads ({@link #OLDEST}). */
    private @Nullable ClientRequest oldest;

    /** The newest request owed, the chain's tail; the owner's. */
    private @Nullable ClientRequest newest;

    /** The oldest request owed whose bytes wait in the worker's bundle, not stamped written yet; the owner's. */
    private @Nullable ClientRequest firstUnwritten;

    /** How many are owed, for any thread to read: the owner sets it, with no fence, as it changes the chain owed. */
    @SuppressWarnings("unused")
    private int owedCount;

    /** Whether the connection ended: a request is no longer owed; the owner sets it, the others read it. */
    private volatile boolean ended;

    /** Whether the client's sweep asked the owner to check the requests' times, and the owner has not yet. */
    private volatile boolean expiryAsked;

    /** When the sweep asked, {@link System#nanoTime()}; the sweep's. */
    private long expiryAskedAt;

    /**
     * The requests other threads handed over and the owner did not take yet: their count in the bits
     * from 40 up, their bytes below; changed by atomic additions only.
     */
    @SuppressWarnings("unused")
    private volatile long handedWaiting;

    /** Requests other threads handed over, encoded, newest first; closed ({@link Handoff#close}) once the connection ended. */
    @SuppressWarnings("unused")
    private volatile @Nullable Handoff<ClientRequest> handed;

    /** When the connection opened, {@link System#nanoTime()}. */
    volatile long openedAt;

    private static final VarHandle HANDED;

    private static final VarHandle OWED_COUNT;

    private static final VarHandle OLDEST;

    private static final VarHandle HANDED_WAITING;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HANDED = lookup.findVarHandle(ClientLink.class, "handed", Handoff.class);
            OWED_COUNT = lookup.findVarHandle(ClientLink.class, "owedCount", int.class);
            OLDEST = lookup.findVarHandle(ClientLink.class, "oldest", ClientRequest.class);
            HANDED_WAITING = lookup.findVarHandle(ClientLink.class, "handedWaiting", long.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    ClientLink(Opener opener, RequestTerms terms, InetSocketAddress target, String host) {
        this.opener = opener;
        this.terms = terms;
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
            this.opener.connected(this, connection);
        }
    }

    /** The connection is finished; its owner. Owed requests fail, and its client learns of it. */
    void finished(TcpConnection connection) {
        Throwable failure = connection.failure();
        this.opener.finished(this, connection, failure);
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
        ByteBuffer carried = ClientRequest.copyOf(connection.profile.writeMessage(message));
        request.carried = carried;
        // Counted before it can be taken: the owner takes it off as it takes the request.
        long bytes = carried.remaining();
        HANDED_WAITING.getAndAdd(this, (1L << 40) | bytes);
        if (!Handoff.pushUnlessClosed(HANDED, this, request)) {
            HANDED_WAITING.getAndAdd(this, -((1L << 40) | bytes));
            return false;
        }
        connection.requestRun();
        return true;
    }

    /** @return the requests handed over and not taken by the owner yet; any thread */
    int handedRequests() {
        return (int) ((long) HANDED_WAITING.getOpaque(this) >>> 40);
    }

    /** @return the bytes of the requests handed over and not taken by the owner yet; any thread */
    long handedBytes() {
        return (long) HANDED_WAITING.getOpaque(this) & ((1L << 40) - 1);
    }

    /**
     * Owes a request and writes it, in that order; the owner. Written in the connection's turn, its
     * bytes reach the socket now; from another connection's turn on the only worker, they wait in the
     * worker's bundle for this connection's turn.
     */
    private boolean owe(TcpConnection connection, ClientRequest request, Object message) {
        if (this.ended) {
            return false;
        }
        boolean inItsTurn = connection.isOwnedByCurrentThread();
        ClientRequest before = this.newest;
        ClientRequest unwrittenBefore = this.firstUnwritten;
        add(request);
        try {
            connection.send(message);
        }
        catch (RuntimeException ex) {
            // Not owed after all: the chain ends where it did.
            this.newest = before;
            this.firstUnwritten = unwrittenBefore;
            if (before == null) {
                OLDEST.setRelease(this, (ClientRequest) null);
            }
            else {
                before.nextOwed(null);
            }
            OWED_COUNT.setOpaque(this, (int) OWED_COUNT.getOpaque(this) - 1);
            throw ex;
        }
        if (inItsTurn) {
            // (A write in the turn sends what the bundle held first.)
            stampWritten(request);
        }
        else if (this.firstUnwritten == null) {
            this.firstUnwritten = request;
        }
        return true;
    }

    /** Adds a request to the chain owed, as its newest; the owner. */
    private void add(ClientRequest request) {
        ClientRequest last = this.newest;
        this.newest = request;
        if (last == null) {
            OLDEST.setRelease(this, request);
        }
        else {
            last.nextOwed(request);
        }
        OWED_COUNT.setOpaque(this, (int) OWED_COUNT.getOpaque(this) + 1);
    }

    /**
     * Stamps the requests whose bytes waited, up to the one given, as handed to the socket now, when the
     * client has a request timeout (only the timeout reads the stamp); the owner.
     * @param upTo the newest request written now; {@code null} for every request owed
     */
    private void stampWritten(@Nullable ClientRequest upTo) {
        ClientRequest from = (this.firstUnwritten != null) ? this.firstUnwritten : upTo;
        this.firstUnwritten = null;
        if (from == null || !this.terms.timesRequests()) {
            return;
        }
        long now = System.nanoTime();
        if (now == 0) {
            // (0 means not written.)
            now = 1;
        }
        for (ClientRequest request = from; request != null; request = request.nextOwed()) {
            request.written(now);
            if (request == upTo) {
                return;
            }
        }
    }

    /** @return whether the owner has something to do in its turn: requests handed over, or a timeout to check; any thread */
    boolean hasWork() {
        return this.expiryAsked || Handoff.waitsOpen(HANDED, this);
    }

    /**
     * The connection's turn ends, its replies read: the requests whose bytes waited in the bundle were
     * written in it (when no other thread's write waits still), and the timeout is applied when the
     * sweep asked; the owner.
     */
    void turnEnds(TcpConnection connection) {
        if (this.firstUnwritten != null && !connection.output.hasRequests()) {
            stampWritten(null);
        }
        if (this.expiryAsked) {
            this.expiryAsked = false;
            if (expire(System.nanoTime(), this.terms.timeoutNanos())) {
                // The replies that still come could no longer be told apart: the connection starts again.
                connection.closeFailed(this.terms.timedOut(this.target));
            }
        }
    }

    /** Owes and writes the requests other threads handed over, oldest first; the owner, in the connection's turn. */
    void work(TcpConnection connection) {
        Handoff<ClientRequest> node = Handoff.takeAllOpen(HANDED, this);
        try {
            for (; node != null; node = node.next) {
                ClientRequest request = node.item;
                ByteBuffer encoded = request.carried;
                request.carried = null;
                HANDED_WAITING.getAndAdd(this, -((1L << 40) | encoded.remaining()));
                if (this.ended) {
                    request.failed(this.terms.closedBeforeSent(this.target, connection.failure()));
                    continue;
                }
                add(request);
                connection.write(encoded);
                stampWritten(request);
            }
        }
        finally {
            // A write that threw (which fails the connection) leaves those after it unsent: they fail, not wait.
            for (Handoff<ClientRequest> rest = (node != null) ? node.next : null; rest != null; rest = rest.next) {
                HANDED_WAITING.getAndAdd(this, -((1L << 40) | rest.item.carried.remaining()));
                rest.item.carried = null;
                rest.item.failed(this.terms.closedBeforeSent(this.target, connection.failure()));
            }
        }
    }

    /**
     * The client's sweep asks the owner to apply the timeout, when any request is owed; or, when the
     * owner did not take its turn since the sweep last asked (a handler holds its worker), ends the
     * requests due itself: no reply was read, but none is blamed on the backend, and the connection
     * stays. The sweep's thread.
     * @param connection the link's connection, whose turn runs for it
     */
    void askExpiry(TcpConnection connection) {
        if ((int) OWED_COUNT.getOpaque(this) == 0) {
            return;
        }
        long now = System.nanoTime();
        if (this.expiryAsked) {
            long timeout = this.terms.timeoutNanos();
            for (ClientRequest request = (ClientRequest) OLDEST.getAcquire(this); request != null; request = request.nextOwed()) {
                long written = request.written();
                if (written == 0 || now - written < timeout) {
                    // Not written, or not due, nor any after it.
                    break;
                }
                if (request.claim()) {
                    request.timedOut(this.terms.heldUp(this.target, TimeUnit.NANOSECONDS.toMillis(now - this.expiryAskedAt)));
                }
            }
            return;
        }
        this.expiryAskedAt = now;
        this.expiryAsked = true;
        connection.requestRun();
    }

    /**
     * @param frame a frame the connection read
     * @return whether a request was owed it (and was answered with it), false for a frame the handler gets; the owner
     */
    boolean reply(ByteBuffer frame) {
        ClientRequest request = takeOldest();
        if (request == null) {
            return false;
        }
        // One that timed out is owed its reply still, which, coming late, completes nothing.
        if (request.claim()) {
            request.answered(frame);
        }
        return true;
    }

    /** @return the oldest request owed, no longer owed from now on; {@code null} when none is; the owner */
    private @Nullable ClientRequest takeOldest() {
        ClientRequest request = this.oldest;
        if (request == null) {
            return null;
        }
        ClientRequest next = request.nextOwed();
        OLDEST.setRelease(this, next);
        if (next == null) {
            this.newest = null;
        }
        if (this.firstUnwritten == request) {
            this.firstUnwritten = next;
        }
        OWED_COUNT.setOpaque(this, (int) OWED_COUNT.getOpaque(this) - 1);
        return request;
    }

    /**
     * @param refusal why the connection's framing refused the frame at hand, which it skips while the connection goes on
     * @return whether a request was owed that frame: the oldest, which fails with the refusal as its reason; the owner
     */
    boolean refused(FramingException refusal) {
        ClientRequest request = takeOldest();
        if (request == null) {
            return false;
        }
        if (request.claim()) {
            request.replyRefused(this.terms.replyRefused(this.target, refusal));
        }
        return true;
    }

    /**
     * Fails each request owed whose bytes left longer than the timeout ago (its reply may never come,
     * and a later one would answer it: the caller closes the connection); the owner, with the replies
     * that came read. Each stays owed its reply, which, coming late, completes nothing.
     * @return whether any timed out now
     */
    boolean expire(long now, long timeoutNanos) {
        boolean any = false;
        for (ClientRequest request = this.oldest; request != null; request = request.nextOwed()) {
            long written = request.written();
            if (written == 0 || now - written < timeoutNanos) {
                break;
            }
            if (request.claim()) {
                request.timedOut(this.terms.timedOut(this.target));
                any = true;
            }
        }
        return any;
    }

    /** @return the requests owed now, and those handed over and not owed yet; any thread */
    int owed() {
        return (int) OWED_COUNT.getOpaque(this) + handedRequests();
    }

    /**
     * The connection ended: each owed request fails with the reason given, as do those handed over and
     * not owed yet, and any handed over from now on is refused; the owner as it finishes the connection (or a
     * stop, once the port's workers are gone).
     */
    void end(String why, @Nullable Throwable cause) {
        this.ended = true;
        ArrayDeque<ClientRequest> left = new ArrayDeque<>();
        for (ClientRequest request = this.oldest; request != null; request = request.nextOwed()) {
            if (request.claim()) {
                left.add(request);
            }
        }
        OLDEST.setRelease(this, (ClientRequest) null);
        this.newest = null;
        this.firstUnwritten = null;
        OWED_COUNT.setOpaque(this, 0);
        for (Handoff<ClientRequest> node = Handoff.close(HANDED, this); node != null; node = node.next) {
            if (node.item.carried != null) {
                HANDED_WAITING.getAndAdd(this, -((1L << 40) | node.item.carried.remaining()));
            }
            node.item.carried = null;
            if (node.item.claim()) {
                left.add(node.item);
            }
        }
        for (ClientRequest request : left) {
            request.failed(new ClientException(this.terms.client, why, cause));
        }
    }
}
