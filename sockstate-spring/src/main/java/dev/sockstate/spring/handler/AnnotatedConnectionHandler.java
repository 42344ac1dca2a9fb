package dev.sockstate.spring.handler;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ConnectionHandler} that calls a {@link SocketHandler} bean's annotated methods; its data
 * method is the {@link OnData} or the {@link OnMessage} one, which only a client's handler may lack
 * (the frames no request is owed are then dropped).
 */
final class AnnotatedConnectionHandler implements ConnectionHandler {

    private final @Nullable HandlerMethod open;

    private final @Nullable HandlerMethod data;

    private final @Nullable HandlerMethod writable;

    private final @Nullable HandlerMethod hangup;

    private final @Nullable HandlerMethod error;

    private final @Nullable HandlerMethod close;

    /**
     * Whether a method called as the connection ends takes the peer's address, which the system tells
     * no more once the connection was reset or closed: it is read as the connection opens, and kept.
     */
    private final boolean addressAtOpen;

    AnnotatedConnectionHandler(@Nullable HandlerMethod open, @Nullable HandlerMethod data, @Nullable HandlerMethod writable,
            @Nullable HandlerMethod hangup, @Nullable HandlerMethod error, @Nullable HandlerMethod close) {
        this.open = open;
        this.data = data;
        this.writable = writable;
        this.hangup = hangup;
        this.error = error;
        this.close = close;
        this.addressAtOpen = takesPeerAddress(hangup) || takesPeerAddress(error) || takesPeerAddress(close);
    }

    private static boolean takesPeerAddress(@Nullable HandlerMethod method) {
        return method != null && method.takesPeerAddress();
    }

    @Override
    public void onOpen(Connection connection) throws Exception {
        if (this.addressAtOpen) {
            try {
                connection.remoteAddress();
            }
            catch (UncheckedIOException | IllegalStateException ex) {
                // Reset before it opened: the call that takes the address fails as it would have.
            }
        }
        call(this.open, connection, null, null);
    }

    @Override
    public void onData(Connection connection, ByteBuffer bytes) throws Exception {
        if (this.data == null) {
            bytes.position(bytes.limit());
            return;
        }
        Object reply = this.data.invoke(connection, bytes, null, null, null);
        if (!this.data.takesBuffer()) {
            // Read whole (as bytes, text or a message): none is left over, for a TLS started in the call either.
            bytes.position(bytes.limit());
        }
        if (reply != null) {
            connection.send(reply);
        }
    }

    @Override
    public void onWritable(Connection connection) throws Exception {
        call(this.writable, connection, null, null);
    }

    @Override
    public void onHangup(Connection connection) throws Exception {
        if (this.hangup == null) {
            connection.close();
            return;
        }
        call(this.hangup, connection, null, null);
    }

    @Override
    public void onError(Connection connection, Throwable failure) {
        try {
            call(this.error, connection, null, failure);
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    @Override
    public void onClose(Connection connection) {
        try {
            call(this.close, connection, null, null);
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static void call(@Nullable HandlerMethod method, Connection connection, @Nullable ByteBuffer bytes,
            @Nullable Throwable failure) throws Exception {
        if (method != null) {
            method.invoke(connection, bytes, failure, null, null);
        }
    }
}
