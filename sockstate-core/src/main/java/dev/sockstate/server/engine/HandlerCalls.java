package dev.sockstate.server.engine;

import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.InvalidMessageException;
import dev.sockstate.server.engine.turn.RunClock;
import dev.sockstate.server.framing.FramingException;
import dev.sockstate.server.engine.turn.Worker;
import dev.sockstate.server.observer.ListenerObserver;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * The terminal of a route: calls a listener's or a client's {@link ConnectionHandler}, each call timed
 * for the observer when it asks (the calls for the frames of one read together, or each from the end
 * of the one before it: {@link RunClock}), and guarded, so that a handler that throws has its
 * connection aborted and its error logged once and counted, instead of unwinding into the worker. A
 * client's route has {@link Replies} before the handler: a frame a request is owed completes the
 * request instead of reaching the handler.
 */
final class HandlerCalls {

    /** The handler's methods. */
    enum Callback {
        OPEN, DATA, WRITABLE, HANGUP, ERROR, CLOSE
    }

    /**
     * What a client's route does before its handler is called: a client's seam on the route, which a
     * listener's route has none of.
     */
    interface Replies {

        /**
         * @param connection the client's connection, owned by the calling thread
         * @param frame a frame read
         * @return whether a request was owed it, which it completed: the handler is not called
         */
        boolean reply(RouteHost connection, ByteBuffer frame);

        /** @param connection the client's connection, whose open reaches its handler now: it serves its client from now on */
        void opening(RouteHost connection);

        /**
         * @param connection the client's connection, owned by the calling thread
         * @param refusal why its framing refused a frame, which it skips while the connection goes on
         * @return whether a request was owed that frame, which failed with the refusal: the handler is not told
         */
        boolean refused(RouteHost connection, FramingException refusal);
    }

    private final ListenerState reports;

    private final ListenerObserver observer;

    private final ConnectionHandler handler;

    /** A client's replies, taken before the handler is called; {@code null} for a listener. */
    private final @Nullable Replies replies;

    /**
     * @param reports where a handler's failure is logged and counted
     * @param observer the listener's or client's observer
     * @param handler the handler
     * @param replies a client's replies, {@code null} for a listener
     */
    HandlerCalls(ListenerState reports, ListenerObserver observer, ConnectionHandler handler, @Nullable Replies replies) {
        this.reports = reports;
        this.observer = observer;
        this.handler = handler;
        this.replies = replies;
    }

    /**
     * Calls one of the handler's methods.
     * @param callback which
     * @param connection the connection
     * @param data the bytes, for {@link Callback#DATA}
     * @param error the failure, for {@link Callback#ERROR}
     */
    void call(Callback callback, RouteHost connection, @Nullable ByteBuffer data, @Nullable Throwable error) {
        Replies replies = this.replies;
        if (replies != null && (callback == Callback.DATA && replies.reply(connection, data)
                || callback == Callback.ERROR && error instanceof FramingException refusal && refusal.skips() && replies.refused(connection, refusal))) {
            // A frame a client's request is owed is its reply (or, refused and skipped, its failure): no handler call, nothing to time.
            return;
        }
        boolean timed = this.observer.timesHandlers();
        // In a run (the frames of one read), calls are timed together when the observer sums them (no
        // reading of their own), else each starts where the one before it ended: one reading a call.
        boolean summed = timed && RunClock.sumsCall(this);
        long start = (timed && !summed) ? RunClock.callStart() : 0;
        boolean failed = false;
        // The requests an accepted connection's handler makes on a worker are tied to it: a graceful
        // stop closes it only once their replies came (the handler may still write them on).
        Object outer = Worker.handling((replies != null) ? null : connection);
        try {
            switch (callback) {
                case OPEN -> {
                    if (replies != null) {
                        replies.opening(connection);
                    }
                    this.handler.onOpen(connection);
                }
                case DATA -> this.handler.onData(connection, data);
                case WRITABLE -> this.handler.onWritable(connection);
                case HANGUP -> this.handler.onHangup(connection);
                case ERROR -> this.handler.onError(connection, error);
                case CLOSE -> this.handler.onClose(connection);
            }
        }
        catch (InvalidMessageException ex) {
            // The peer's bytes, not the handler, were wrong: counted as bad input, and the handler told.
            failed = true;
            this.reports.frameRejected(connection, "closing", ex);
            connection.rejected(ex);
        }
        catch (Throwable ex) {
            failed = true;
            if (callback != Callback.CLOSE) {
                connection.requestClose(true);
            }
            this.reports.handlerFailed(connection,
                    (callback == Callback.CLOSE) ? "the connection was already closed" : "closing the connection", ex);
        }
        finally {
            Worker.handling(outer);
        }
        if (!summed) {
            this.observer.handled(timed ? RunClock.lap() - start : 0, failed);
        }
        else if (failed) {
            this.observer.handled(RunClock.failedInSum(), true);
        }
    }

    /** @return this, when the observer takes handler times summed over a run ({@link RunClock#startRun}); else {@code null} */
    @Nullable HandlerCalls summing() {
        return this.observer.timesHandlers() && this.observer.sumsHandlerTimes() ? this : null;
    }

    /**
     * @param calls handler calls a run timed together, none failed
     * @param nanos their time
     */
    void handledTogether(int calls, long nanos) {
        this.observer.handled(calls, nanos);
    }

    /** @return what the requests a client's run of frames answers are counted together for, or {@code null} */
    @Nullable Object summingRequests() {
        return (this.replies != null && this.observer.sumsRequestTimes()) ? this.replies : null;
    }

    /** @param count requests answered in one run, counted together, @param nanos their times added up */
    void requestsEnded(int count, long nanos) {
        this.observer.requests(count, nanos);
    }
}
