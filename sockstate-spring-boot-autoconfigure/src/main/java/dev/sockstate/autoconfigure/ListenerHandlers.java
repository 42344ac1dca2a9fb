package dev.sockstate.autoconfigure;

import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.DatagramEndpoint;
import dev.sockstate.server.DatagramHandler;
import dev.sockstate.spring.handler.SocketHandlers.ListenerKind;
import dev.sockstate.spring.handler.SocketHandlers;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The listeners' handlers, found among the {@code @SocketHandler} beans once every singleton exists,
 * as Spring finds {@code @EventListener} methods: the socket server is made before them, with a
 * stand-in per listener that passes each call on to the handler found, so a handler may inject the
 * {@link dev.sockstate.server.engine.SocketServer} (to read a bound port, say). They are found as the
 * context starts, in the phase before the server's, on the thread that refreshes the context, so a
 * handler that does not fit fails start-up (with lazy initialization too). The outbound clients'
 * handlers are found alike, each behind a stand-in too; a client no bean serves drops the frames no
 * request is owed, as the core's own clients without a handler do. The {@link HandlerDecorator}s wrap
 * the listeners' handlers only (they are given listener names).
 */
final class ListenerHandlers implements SmartLifecycle {

    private final ListableBeanFactory beans;

    private final Supplier<Map<String, ListenerKind>> listeners;

    private final Supplier<Map<String, ListenerKind>> clients;

    private final Supplier<List<HandlerDecorator>> decorators;

    private final Map<String, StandIn> standIns = new LinkedHashMap<>();

    private final Map<String, StandIn> clientStandIns = new LinkedHashMap<>();

    /** Whether the auto-configured server takes its handlers from here. */
    private boolean serving;

    /** Whether the handlers were found and put behind their stand-ins. */
    private boolean resolved;

    /**
     * @param beans where the {@code @SocketHandler} beans are
     * @param listeners the configured listeners, asked for once the singletons exist
     * @param clients the configured clients, asked for with the listeners
     * @param decorators what wraps the listeners' handlers found, first outermost, asked for with the listeners
     */
    ListenerHandlers(ListableBeanFactory beans, Supplier<Map<String, ListenerKind>> listeners,
            Supplier<Map<String, ListenerKind>> clients, Supplier<List<HandlerDecorator>> decorators) {
        this.beans = beans;
        this.listeners = listeners;
        this.clients = clients;
        this.decorators = decorators;
    }

    /** The auto-configured server takes its handlers from here: they are to be found, even for no listener. */
    synchronized void serving() {
        this.serving = true;
    }

    /**
     * @param listener a configured listener's name
     * @return the stand-in for its handler, which passes calls on once the handler is found
     */
    synchronized StandIn handler(String listener) {
        return this.standIns.computeIfAbsent(listener, (name) -> new StandIn("listener", name));
    }

    /**
     * @param client a configured client's name
     * @return the stand-in for the handler of its connections, which passes calls on once the handler
     * is found (or drops the frames no request is owed, when no bean serves the client)
     */
    synchronized StandIn clientHandler(String client) {
        return this.clientStandIns.computeIfAbsent(client, (name) -> new StandIn("client", name));
    }

    /**
     * Finds every listener's handler (or fails start-up saying what does not fit) and puts it behind
     * its stand-in, if the auto-configured server takes its handlers from here.
     */
    @Override
    public synchronized void start() {
        if (this.serving) {
            resolve();
        }
    }

    @Override
    public void stop() {
    }

    @Override
    public synchronized boolean isRunning() {
        return this.resolved;
    }

    /** Just before the server's phase, which starts the server. */
    @Override
    public int getPhase() {
        return SocketServerLifecycle.PHASE - 1;
    }

    /** Finds the handlers, once. */
    synchronized void resolve() {
        if (this.resolved) {
            return;
        }
        Map<String, ListenerKind> listeners = this.listeners.get();
        SocketHandlers handlers = SocketHandlers.resolve(this.beans, listeners, this.clients.get());
        List<HandlerDecorator> decorators = this.decorators.get();
        this.standIns.forEach((name, standIn) -> {
            ListenerKind kind = listeners.get(name);
            if (kind != null && kind.protocol() == Protocol.TCP) {
                standIn.connections = decorated(name, handlers.connectionHandler(name), decorators, HandlerDecorator::decorate);
            }
            else if (kind != null) {
                standIn.datagrams = decorated(name, handlers.datagramHandler(name), decorators, HandlerDecorator::decorate);
            }
        });
        this.clientStandIns.forEach((name, standIn) -> {
            ConnectionHandler handler = handlers.clientHandler(name);
            standIn.connections = (handler != null) ? handler : ListenerHandlers::discard;
        });
        this.resolved = true;
    }

    /**
     * @param listener the name of a listener added while the server runs
     * @param kind what the handler needs to know of it
     * @param handler its handler, as {@link SocketHandlers#listenerHandler} takes it
     * @return the handler adapted and wrapped by the decorators, as a configured listener's is
     */
    Object runtimeHandler(String listener, ListenerKind kind, Object handler) {
        Object adapted = SocketHandlers.listenerHandler(handler, listener, kind);
        List<HandlerDecorator> decorators = this.decorators.get();
        if (adapted instanceof ConnectionHandler connections) {
            return decorated(listener, connections, decorators, HandlerDecorator::decorate);
        }
        return decorated(listener, (DatagramHandler) adapted, decorators, HandlerDecorator::decorate);
    }

    /** What a client no bean serves does with the frames no request is owed: drops them. */
    private static void discard(Connection connection, ByteBuffer data) {
        data.position(data.limit());
    }

    /** @return the handler wrapped by each decorator, the first outermost */
    private static <H> H decorated(String listener, H handler, List<HandlerDecorator> decorators, Decoration<H> decoration) {
        H decorated = handler;
        for (int i = decorators.size() - 1; i >= 0; i--) {
            HandlerDecorator decorator = decorators.get(i);
            decorated = decoration.apply(decorator, listener, decorated);
            if (decorated == null) {
                throw new IllegalStateException("HandlerDecorator " + decorator + " returned no handler for listener '" + listener + "'");
            }
        }
        return decorated;
    }

    /** One of {@link HandlerDecorator}'s methods. */
    @FunctionalInterface
    private interface Decoration<H> {

        H apply(HandlerDecorator decorator, String listener, H handler);
    }

    /**
     * A listener's or a client's handler until the singletons exist, then the way to it. Set before
     * the server starts its threads, so that they read it set.
     */
    static final class StandIn implements ConnectionHandler, DatagramHandler {

        /** listener or client */
        private final String kind;

        private final String listener;

        private volatile @Nullable ConnectionHandler connections;

        private volatile @Nullable DatagramHandler datagrams;

        StandIn(String kind, String listener) {
            this.kind = kind;
            this.listener = listener;
        }

        private ConnectionHandler connections() {
            ConnectionHandler handler = this.connections;
            if (handler == null) {
                throw notFound();
            }
            return handler;
        }

        private DatagramHandler datagrams() {
            DatagramHandler handler = this.datagrams;
            if (handler == null) {
                throw notFound();
            }
            return handler;
        }

        private IllegalStateException notFound() {
            return new IllegalStateException("No handler was found for " + this.kind + " '" + this.listener
                    + "': the server was started without the context that finds them");
        }

        @Override
        public String toString() {
            return "the handler of " + this.kind + " '" + this.listener + "'";
        }

        @Override
        public void onOpen(Connection connection) throws Exception {
            connections().onOpen(connection);
        }

        @Override
        public void onData(Connection connection, ByteBuffer data) throws Exception {
            connections().onData(connection, data);
        }

        @Override
        public void onWritable(Connection connection) throws Exception {
            connections().onWritable(connection);
        }

        @Override
        public void onHangup(Connection connection) throws Exception {
            connections().onHangup(connection);
        }

        @Override
        public void onError(Connection connection, Throwable error) {
            connections().onError(connection, error);
        }

        @Override
        public void onClose(Connection connection) {
            connections().onClose(connection);
        }

        @Override
        public void onDatagram(DatagramEndpoint endpoint, ByteBuffer data, PeerAddress sender) throws Exception {
            datagrams().onDatagram(endpoint, data, sender);
        }
    }
}
