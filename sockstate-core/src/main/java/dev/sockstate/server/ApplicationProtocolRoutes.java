package dev.sockstate.server;

import java.nio.ByteBuffer;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The handler {@link ConnectionHandler#byApplicationProtocol} makes: each call goes to the handler of
 * the connection's application protocol, which its handshake chose before the open and which never
 * changes after it (a listener whose TLS starts on request, after the open, refuses it).
 */
final class ApplicationProtocolRoutes implements ConnectionHandler {

    private final Map<String, ConnectionHandler> handlers;

    private final @Nullable ConnectionHandler otherwise;

    ApplicationProtocolRoutes(Map<String, ? extends ConnectionHandler> handlers, @Nullable ConnectionHandler otherwise) {
        if (handlers == null || handlers.isEmpty() && otherwise == null) {
            throw new IllegalArgumentException("Routing by application protocol needs a map of handlers, with one at least or an otherwise");
        }
        handlers.forEach((name, handler) -> {
            if (name == null || handler == null) {
                throw new IllegalArgumentException("An application protocol route needs a name and a handler, not " + name + " -> " + handler);
            }
        });
        this.handlers = Map.copyOf(handlers);
        this.otherwise = otherwise;
    }

    /** @return the connection's handler, {@code null} when none serves its application protocol */
    private @Nullable ConnectionHandler of(Connection connection) {
        String protocol = connection.applicationProtocol();
        ConnectionHandler handler = (protocol != null) ? this.handlers.get(protocol) : null;
        return (handler != null) ? handler : this.otherwise;
    }

    @Override
    public void onOpen(Connection connection) throws Exception {
        ConnectionHandler handler = of(connection);
        if (handler == null) {
            connection.close();
            return;
        }
        handler.onOpen(connection);
    }

    @Override
    public void onData(Connection connection, ByteBuffer data) throws Exception {
        ConnectionHandler handler = of(connection);
        if (handler != null) {
            handler.onData(connection, data);
        }
        else {
            data.position(data.limit());
        }
    }

    @Override
    public void onWritable(Connection connection) throws Exception {
        ConnectionHandler handler = of(connection);
        if (handler != null) {
            handler.onWritable(connection);
        }
    }

    @Override
    public void onHangup(Connection connection) throws Exception {
        ConnectionHandler handler = of(connection);
        if (handler != null) {
            handler.onHangup(connection);
        }
        else {
            connection.close();
        }
    }

    @Override
    public void onError(Connection connection, Throwable error) {
        ConnectionHandler handler = of(connection);
        if (handler != null) {
            handler.onError(connection, error);
        }
    }

    @Override
    public void onClose(Connection connection) {
        ConnectionHandler handler = of(connection);
        if (handler != null) {
            handler.onClose(connection);
        }
    }

    @Override
    public String toString() {
        return "handlers by application protocol " + this.handlers.keySet() + ((this.otherwise != null) ? ", otherwise " + this.otherwise : "");
    }
}
