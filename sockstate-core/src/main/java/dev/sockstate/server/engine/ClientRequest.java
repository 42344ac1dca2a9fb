package dev.sockstate.server.engine;

import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.client.ReplyHandler;
import dev.sockstate.server.engine.turn.RunClock;
import dev.sockstate.server.engine.turn.Worker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * A request owed a reply: ended once, by the reply, a failure or its timeout, whichever claims it
 * first (the link's owner, or the client's timer when that owner is held up), and counted before
 * whoever waits for it hears of it, so that they find it counted. The requests a connection owes
 * are a chain, oldest first ({@link #nextOwed}), which the link's owner alone adds to and takes from
 * and the timer may walk.
 */
abstract class ClientRequest {

    private static final VarHandle CLAIMED;

    private static final VarHandle WRITTEN;

    private static final VarHandle NEXT_OWED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            CLAIMED = lookup.findVarHandle(ClientRequest.class, "claimed", boolean.class);
            WRITTEN = lookup.findVarHandle(ClientRequest.class, "written", long.class);
            NEXT_OWED = lookup.findVarHandle(ClientRequest.class, "nextOwed", ClientRequest.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** What the requests of its client share: the names their failures give, the timeout, the meters. */
    final RequestTerms terms;

    /**
     * When it was made, {@link System#nanoTime()}, where its time in the meters starts: made by a
     * handler on a worker, the clock of the read at hand ({@link RunClock#clock()}), as its reply's
     * end is the clock of the read that brought it.
     */
    final long made = RunClock.clock();

    /**
     * When its bytes were handed to the socket, {@link System#nanoTime()}, where its request timeout
     * starts; 0 while they wait in this process (or when the client has no request timeout). Set by
     * the link's owner, read by the timer too.
     */
    @SuppressWarnings("unused")
    private long written;

    /** The request owed after it on its connection, {@code null} for the newest; set once by the link's owner, read by the timer too. */
    @SuppressWarnings("unused")
    private @Nullable ClientRequest nextOwed;

    /** Whether its end was claimed: by one outcome only, whichever thread claims it first. */
    @SuppressWarnings("unused")
    private volatile boolean claimed;

    /**
     * Bytes it carries to another thread, a copy: its own, encoded, while it is handed over to the
     * link's owner; its reply's while that is handed over to the connection that awaits it; else {@code null}.
     */
    @Nullable ByteBuffer carried;

    /** Its failure while that is handed over to the connection that awaits it; else {@code null}. */
    @Nullable Throwable carriedFailure;

    /** The accepted connection whose handler made it on a worker, which awaits its end; or {@code null}. */
    private @Nullable ReplyAwaiter awaitedBy;

    ClientRequest(RequestTerms terms) {
        this.terms = terms;
    }

    /** @param connection the accepted connection whose handler makes the request, before it is sent */
    final void awaitedBy(ReplyAwaiter connection) {
        this.awaitedBy = connection;
        connection.replyAwaited();
    }

    /** @return whether this claims its end now: false when another outcome did first */
    final boolean claim() {
        return !this.claimed && CLAIMED.compareAndSet(this, false, true);
    }

    /** @return when its bytes were handed to the socket, {@link System#nanoTime()}; 0 while they wait in this process */
    final long written() {
        return (long) WRITTEN.getOpaque(this);
    }

    /** @param nanos when its bytes were handed to the socket, {@link System#nanoTime()}, not 0; the link's owner */
    final void written(long nanos) {
        WRITTEN.setOpaque(this, nanos);
    }

    /** @return the request owed after it, {@code null} for the newest owed; any thread */
    final @Nullable ClientRequest nextOwed() {
        return (ClientRequest) NEXT_OWED.getAcquire(this);
    }

    /** @param next the request owed after it, made visible with what the link's owner wrote of it before; once */
    final void nextOwed(@Nullable ClientRequest next) {
        NEXT_OWED.setRelease(this, next);
    }

    /** @param reply the reply frame, a view of the connection's read buffer valid during the call; once claimed */
    final void answered(ByteBuffer reply) {
        ended("success");
        outcome(reply, null);
    }

    /** @param failure why it failed: the connection ended, or it could not be sent; once claimed, or before it was owed */
    final void failed(ClientException failure) {
        CLAIMED.setVolatile(this, true);
        ended("failed");
        outcome(null, failure);
    }

    /** @param failure its reply's refusal: the frame did not pass the client's framing and was skipped; once claimed */
    final void replyRefused(ClientException failure) {
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
    void outcome(@Nullable ByteBuffer reply, @Nullable Throwable failure) {
        handOn(reply, failure);
    }

    /** Hands the outcome on and tells the connection that awaited it, here. */
    final void handOn(@Nullable ByteBuffer reply, @Nullable Throwable failure) {
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
    final @Nullable ReplyAwaiter awaitedBy() {
        return this.awaitedBy;
    }

    /**
     * It ended this way: counted and timed. One handed to a handler and answered in a run is counted
     * with the others that run answers, as the run ends; one awaited by a future is counted before
     * the future completes, so that whoever it wakes finds it counted.
     */
    private void ended(String outcome) {
        long nanos = RunClock.clock() - this.made;
        if (!(this instanceof Handed) || !outcome.equals("success") || !RunClock.sumsRequest(this.terms.runKey, nanos)) {
            this.terms.requestEnded(outcome, nanos);
        }
    }

    /** @return a heap copy of the bytes, from position to limit, for another thread or for keeps; the bytes are consumed */
    static ByteBuffer copyOf(ByteBuffer bytes) {
        return ByteBuffer.allocate(bytes.remaining()).put(bytes).flip();
    }

    /** Hands the reply on; once. */
    abstract void reply(ByteBuffer reply);

    /** Hands the failure on; once. */
    abstract void fail(Throwable failure);

    /** A request whose reply completes a future with a copy of the frame. */
    static final class Awaited extends ClientRequest {

        final WorkerFuture<ByteBuffer> reply;

        Awaited(RequestTerms terms) {
            super(terms);
            this.reply = new WorkerFuture<>(terms, "a request's reply");
        }

        @Override
        void reply(ByteBuffer frame) {
            this.reply.complete(copyOf(frame));
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
    static final class Handed extends ClientRequest implements Runnable {

        private final ReplyHandler handler;

        Handed(RequestTerms terms, ReplyHandler handler) {
            super(terms);
            this.handler = handler;
        }

        @Override
        void outcome(@Nullable ByteBuffer reply, @Nullable Throwable failure) {
            ReplyAwaiter by = awaitedBy();
            if (by == null || by.callsHere() && !by.lastCallsBegan()) {
                inCallsOf(by, reply, failure);
                return;
            }
            // Another thread's (a worker's of another port, a timer's): carried to the connection's turn.
            this.carried = (reply != null) ? copyOf(reply) : null;
            this.carriedFailure = failure;
            by.handToTurn(this);
        }

        /** Hands on the outcome handed over; the connection that awaits it, in its turn (or as it ends). */
        @Override
        public void run() {
            ByteBuffer reply = this.carried;
            Throwable failure = this.carriedFailure;
            this.carried = null;
            this.carriedFailure = null;
            inCallsOf(awaitedBy(), reply, failure);
        }

        /** Hands the outcome on as a call of the connection's: requests its handler makes now are tied to it too. */
        private void inCallsOf(@Nullable ReplyAwaiter by, @Nullable ByteBuffer reply, @Nullable Throwable failure) {
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
            tell(frame, null);
        }

        @Override
        void fail(Throwable failure) {
            tell(null, failure);
        }

        /** Tells the handler; what it throws is logged (a VM error goes on), not the connection's. */
        private void tell(@Nullable ByteBuffer frame, @Nullable Throwable failure) {
            try {
                this.handler.onReply(frame, failure);
            }
            catch (VirtualMachineError ex) {
                throw ex;
            }
            catch (RuntimeException | Error ex) {
                this.terms.handlerFailed((failure == null) ? "on its reply" : "on its request's failure (" + failure + ")", ex);
            }
        }
    }
}
