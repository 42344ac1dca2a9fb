package dev.sockstate.server.engine;

import dev.sockstate.server.Stage;
import dev.sockstate.server.engine.HandlerCalls.Callback;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The way between a socket and a handler that all the connections of one listener or one client
 * share, built once: inbound, the socket end, the stages (the PROXY protocol's, if read, and TLS's,
 * if secured, ordinary stages the profile's makers put first; then the user's), the framing (if
 * any), and the terminal, which calls the handler
 * ({@link HandlerCalls}, with a client's {@link HandlerCalls.Replies} before it); outbound the mirror.
 * The stages are each connection's own (a {@link Pipeline}, made as it opens); the framing and the
 * terminal are shared, and keep what they keep for a connection in the connection. A route knows its
 * connection as a {@link RouteHost} only. Without stages and framing, bytes go from the socket to the
 * handler, and back, in a direct call.
 */
final class Route {

    /** The terminal. */
    private final HandlerCalls handler;

    /** The framing, or {@code null} for raw reads. */
    private final @Nullable Framer framer;

    /** Makers of each connection's own stages, in inbound order: the route's own first (the PROXY protocol's, TLS's), then the listener's. */
    private final List<Function<RouteHost, ? extends Stage>> stageMakers;

    /** How many of the first makers are the route's own. */
    private final int builtIn;

    /** Where a stage's failure is logged and counted. */
    private final ListenerState reports;

    /**
     * @param handler the terminal
     * @param framer the framing, {@code null} for none
     * @param stageMakers the makers of each connection's stages, in inbound order
     * @param builtIn how many of the first makers are the route's own (the PROXY protocol's, TLS's), not the user's
     * @param reports where failures are logged and counted
     */
    Route(HandlerCalls handler, @Nullable Framer framer, List<Function<RouteHost, ? extends Stage>> stageMakers, int builtIn,
            ListenerState reports) {
        this.handler = handler;
        this.framer = framer;
        this.stageMakers = List.copyOf(stageMakers);
        this.builtIn = builtIn;
        this.reports = reports;
    }

    /**
     * @param connection a new connection
     * @return its stages (the PROXY protocol's first, then TLS's, then the user's), {@code null} for a route without
     * @throws RuntimeException what a stage maker threw
     */
    @Nullable Pipeline newPipeline(RouteHost connection) {
        return !this.stageMakers.isEmpty() ? new Pipeline(connection, this.handler, this.reports, this.stageMakers, this.builtIn) : null;
    }

    /**
     * Calls the handler, timed and guarded ({@link HandlerCalls}).
     * @param callback which of its methods
     * @param connection the connection, owned by the calling thread
     * @param data the bytes, for {@link Callback#DATA}
     * @param error the failure, for {@link Callback#ERROR}
     */
    void call(Callback callback, RouteHost connection, @Nullable ByteBuffer data, @Nullable Throwable error) {
        this.handler.call(callback, connection, data, error);
    }

    /**
     * @param connection the connection, owned by the calling thread
     * @param data bytes that passed the stages: cut into frames for the handler, or handed to it as they are
     */
    void toHandler(RouteHost connection, ByteBuffer data) {
        if (this.framer != null) {
            this.framer.inbound(connection, data);
        }
        else if (connection.tlsStarting()) {
            // TLS started and what follows the command still comes (a stage passes a read on in pieces): the handshake's.
            connection.tlsRest(data);
        }
        else {
            this.handler.call(Callback.DATA, connection, data, null);
            if (connection.tlsStarting()) {
                // What the handler left of the bytes after starting TLS is the handshake's.
                connection.tlsRest(data);
            }
        }
    }

    /**
     * Hands what the connection's framing keeps and has not handed out (an unfinished frame, frames
     * held back) to its TLS, started between reads; the owner.
     */
    void handBackKept(RouteHost connection) {
        if (this.framer != null) {
            this.framer.handBackKept(connection);
        }
    }

    /** Sends the framed replies the connection gathered so far, ahead of what it writes next; the owner. */
    void sendGathered(RouteHost connection) {
        if (this.framer != null) {
            this.framer.sendGathered(connection);
        }
    }

    /**
     * @param connection the connection, owned by the calling thread
     * @param data bytes the handler's side wrote: framed if the route frames them, then towards the socket
     * @param owned whether the buffer is a copy the write queue may keep
     */
    void fromHandler(RouteHost connection, ByteBuffer data, boolean owned) {
        if (this.framer != null) {
            this.framer.outbound(connection, data);
        }
        else {
            connection.toSocket(data, owned);
        }
    }

    /** @return whether what handlers write goes on as it is: no framing, or one that does not encode */
    boolean writesAsIs() {
        return this.framer == null || this.framer.writesAsIs();
    }

    /** @return the framed bytes a connection gathered and did not send yet; the owner */
    int gatheredBytes(RouteHost connection) {
        return (this.framer != null) ? this.framer.gatheredBytes(connection) : 0;
    }

    /** Hands the connection's handler the frames its framing held back while its queue was over its limit; the owner. */
    void releaseHeldFrames(RouteHost connection) {
        if (this.framer != null) {
            this.framer.releaseHeld(connection);
        }
    }

    /**
     * @param connection a connection of the route, not owned now
     * @param nanos the current {@link System#nanoTime()}
     * @return how long its unfinished frame has been coming, in milliseconds, when past the frame
     * timeout; -1 otherwise (and without framing)
     */
    long frameOverdueMillis(RouteHost connection, long nanos) {
        return (this.framer != null) ? this.framer.overdueMillis(connection, nanos) : -1;
    }

    /** @return the framing's frame timeout, {@code null} for none (or without framing) */
    @Nullable Duration frameTimeout() {
        return (this.framer != null) ? this.framer.frameTimeout() : null;
    }

    /** @return bytes the unfinished frames of the route's connections hold now; 0 without framing */
    long unfinishedFrameBytes() {
        return (this.framer != null) ? this.framer.unfinishedBytes() : 0;
    }

    /** @return bytes of the direct buffers the framing made to encode writes into; 0 without framing */
    long pooledBufferBytes() {
        return (this.framer != null) ? this.framer.pooledBufferBytes() : 0;
    }

    /** The connection is finished: what the framing kept for it is dropped. */
    void dropFraming(RouteHost connection) {
        if (this.framer != null) {
            this.framer.drop(connection);
        }
    }
}
