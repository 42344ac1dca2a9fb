package dev.sockstate.server;

import java.nio.ByteBuffer;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Receives the events of a TCP listener's connections. One connection is never handled by two
 * threads at once, so a handler may keep per-connection state in {@link Connection#attributes()}
 * without locking. Methods may throw: the connection is then closed, and the error logged once
 * with the listener's name and counted.
 */
public interface ConnectionHandler {

    /**
     * A handler that hands each connection to the handler of the application protocol its TLS
     * handshake chose ({@link Connection#applicationProtocol()}, ALPN), for a listener that serves
     * several protocols on one port ({@link dev.sockstate.server.tls.Tls#withApplicationProtocols}).
     * A connection with none, or one the map has no handler for, goes to {@code otherwise}; without
     * that, it is closed as it opens. A listener whose TLS starts on request ({@code Tls.withStartTls})
     * refuses it: its connections open in plaintext, before any protocol is negotiated.
     * @param handlers the handlers by application protocol name
     * @param otherwise the handler of the other connections, {@code null} to close them
     * @return the handler that picks one by the connection's application protocol
     * @throws IllegalArgumentException when no handler is given
     */
    static ConnectionHandler byApplicationProtocol(Map<String, ? extends ConnectionHandler> handlers,
            @Nullable ConnectionHandler otherwise) {
        return new ApplicationProtocolRoutes(handlers, otherwise);
    }

    /**
     * A connection was accepted and registered.
     * @param connection the new connection
     * @throws Exception to close it
     */
    default void onOpen(Connection connection) throws Exception {
    }

    /**
     * Bytes arrived. The buffer belongs to the worker and is valid only during the call: copy what
     * must outlive it. Unconsumed bytes are not offered again.
     * @param connection the connection
     * @param data the bytes read, from position to limit
     * @throws Exception to close the connection
     */
    void onData(Connection connection, ByteBuffer data) throws Exception;

    /**
     * Everything queued by {@link Connection#write} has been sent: after the socket had no room, or
     * after writes from other threads took the connection over its limit ({@link Connection#isWritable()});
     * one drain may bring more than one call.
     * @param connection the connection
     * @throws Exception to close it
     */
    default void onWritable(Connection connection) throws Exception {
    }

    /**
     * The peer closed its side; no more data will arrive. By default the connection is closed once
     * queued data is sent; override to keep writing on a half-closed connection.
     * @param connection the connection
     * @throws Exception to close it
     */
    default void onHangup(Connection connection) throws Exception {
        connection.close();
    }

    /**
     * The connection failed (reset by the peer, for example), or the peer's bytes were refused; it is
     * closed afterwards, unless the refusal is a {@link dev.sockstate.server.framing.FramingException}
     * that {@linkplain dev.sockstate.server.framing.FramingException#skips() skips} one frame: then
     * only that frame is dropped, and the connection goes on.
     * @param connection the connection
     * @param error what happened
     */
    default void onError(Connection connection, Throwable error) {
    }

    /**
     * The connection is closed and its registration removed: the last call for it. Like
     * {@link #onError}, it follows only a connection whose {@link #onOpen} was called (a stage of the
     * connection's pipeline may hold the open back, and the connection may end before).
     * @param connection the connection
     */
    default void onClose(Connection connection) {
    }
}
