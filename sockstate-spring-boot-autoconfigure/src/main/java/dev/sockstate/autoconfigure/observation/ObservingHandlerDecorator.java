package dev.sockstate.autoconfigure.observation;

import dev.sockstate.autoconfigure.HandlerDecorator;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.DatagramEndpoint;
import dev.sockstate.server.DatagramHandler;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs every handler call in an observation of its own, in scope on the calling thread (so that a
 * tracer's context reaches what the handler logs and calls); a call that throws marks its
 * observation with the error.
 */
final class ObservingHandlerDecorator implements HandlerDecorator {

    private static final DefaultSocketHandlerObservationConvention DEFAULT = new DefaultSocketHandlerObservationConvention();

    private final ObservationRegistry registry;

    private final @Nullable SocketHandlerObservationConvention convention;

    /**
     * @param registry where the observations go
     * @param convention the user's convention, or {@code null} for the default
     */
    ObservingHandlerDecorator(ObservationRegistry registry, @Nullable SocketHandlerObservationConvention convention) {
        this.registry = registry;
        this.convention = convention;
    }

    @Override
    public ConnectionHandler decorate(String listener, ConnectionHandler handler) {
        return new ObservedConnections(listener, handler);
    }

    @Override
    public DatagramHandler decorate(String listener, DatagramHandler handler) {
        return (endpoint, data, sender) -> observe(listener, "udp", "datagram",
                () -> sender.isSet() ? sender.toSocketAddress() : null, () -> handler.onDatagram(endpoint, data, sender));
    }

    /**
     * @param peer the peer's address, asked for only when the registry observes (never by a no-op registry)
     */
    private void observe(String listener, String protocol, String event, Supplier<@Nullable SocketAddress> peer, Call call)
            throws Exception {
        Observation observation = Observation.createNotStarted(this.convention, DEFAULT,
                () -> new SocketHandlerObservationContext(listener, protocol, event, peer.get()), this.registry);
        observation.start();
        try (Observation.Scope scope = observation.openScope()) {
            call.run();
        }
        catch (Exception | Error ex) {
            observation.error(ex);
            throw ex;
        }
        finally {
            observation.stop();
        }
    }

    /** Like {@link #observe} for the calls that throw no checked exception. */
    private void observeUnchecked(String listener, String event, Connection connection, Call call) {
        try {
            observe(listener, "tcp", event, () -> peerOf(connection), call);
        }
        catch (RuntimeException ex) {
            throw ex;
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * @return the connection's peer, or {@code null} when the socket can no longer tell (a peer that
     * reset the connection at once, a connection already finished): an observation never stops the call
     */
    private static @Nullable SocketAddress peerOf(Connection connection) {
        try {
            return connection.remoteAddress();
        }
        catch (RuntimeException ex) {
            return null;
        }
    }

    /** One handler call. */
    @FunctionalInterface
    private interface Call {

        void run() throws Exception;
    }

    /** A TCP listener's handler, observed. */
    private final class ObservedConnections implements ConnectionHandler {

        private final String listener;

        private final ConnectionHandler handler;

        ObservedConnections(String listener, ConnectionHandler handler) {
            this.listener = listener;
            this.handler = handler;
        }

        @Override
        public void onOpen(Connection connection) throws Exception {
            observe(this.listener, "tcp", "open", () -> peerOf(connection), () -> this.handler.onOpen(connection));
        }

        @Override
        public void onData(Connection connection, ByteBuffer data) throws Exception {
            observe(this.listener, "tcp", "data", () -> peerOf(connection), () -> this.handler.onData(connection, data));
        }

        @Override
        public void onWritable(Connection connection) throws Exception {
            observe(this.listener, "tcp", "writable", () -> peerOf(connection), () -> this.handler.onWritable(connection));
        }

        @Override
        public void onHangup(Connection connection) throws Exception {
            observe(this.listener, "tcp", "hangup", () -> peerOf(connection), () -> this.handler.onHangup(connection));
        }

        @Override
        public void onError(Connection connection, Throwable error) {
            observeUnchecked(this.listener, "error", connection, () -> this.handler.onError(connection, error));
        }

        @Override
        public void onClose(Connection connection) {
            observeUnchecked(this.listener, "close", connection, () -> this.handler.onClose(connection));
        }

        @Override
        public String toString() {
            return this.handler.toString();
        }
    }
}
