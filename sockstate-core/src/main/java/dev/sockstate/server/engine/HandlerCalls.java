package dev.sockstate.server.engine;

import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.InvalidMessageException;
import dev.sockstate.server.engine.turn.RunClock;
import dev.sockstate.server.engine.turn.Worker;
import dev.sockstate.server.observer.ListenerObserver;
import java.nio.ByteBuffer;

/**
 * Calls a listener's or a client's {@link ConnectionHandler}: each call timed for the observer when it
 * asks (the calls for the frames of one read together, or each from the end of the one before it:
 * {@link RunClock}), and guarded, so that a handler that throws has its connection aborted and its error logged
 * once and counted, instead of unwinding into the worker. A frame that a client's request is owed
 * completes the request ({@link ClientLink#reply}) instead of reaching the handler.
 */
final class HandlerCalls {

    /** The handler's methods. */
    enum Callback {
        OPEN, DATA, WRITABLE, HANGUP, ERROR, CLOSE
    }

    private final Listener listener;

    private final ListenerObserver observer;

    private final ConnectionHandler handler;

    /** Whether the listener is a client's: only a client's connections have requests that frames complete. */
    private final boolean client;

    HandlerCalls(Listener listener, ListenerObserver observer, ConnectionHandler handler) {
        this.listener = listener;
        this.client = listener.isClient();
        this.observer = observer;
        this.handler = handler;
    }

    /**
     * Calls one of the handler's methods.
     * @param callback which
     * @param connection the connection
     * @param data the bytes, for {@link Callback#DATA}
     * @param error the failure, for {@link Callback#ERROR}
     */
    void call(Callback callback, TcpConnection connection, ByteBuffer data, Throwable error) {
        if (callback == Callback.DATA && this.client && connection.link().reply(data)) {
            // A frame a client's request is owed is its reply: no handler call, nothing to time.
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
        Object outer = Worker.handling(this.client ? null : connection);
        try {
            switch (callback) {
                case OPEN -> {
                    if (this.client) {
                        // A client's connection serves it from now on.
                        connection.link().opening(connection);
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
            this.listener.frameRejected(connection, "closing", ex);
            connection.rejected(ex);
        }
        catch (Throwable ex) {
            failed = true;
            if (callback != Callback.CLOSE) {
                connection.requestClose(true);
            }
            this.listener.handlerFailed(connection,
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
    HandlerCalls summing() {
        return this.observer.timesHandlers() && this.observer.sumsHandlerTimes() ? this : null;
    }

    /**
     * @param calls handler calls a run timed together, none failed
     * @param nanos their time
     */
    void handledTogether(int calls, long nanos) {
        this.observer.handled(calls, nanos);
    }
}
