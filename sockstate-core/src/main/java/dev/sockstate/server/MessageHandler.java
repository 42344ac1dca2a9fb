package dev.sockstate.server;

import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ConnectionHandler} at the level of messages, for a listener with framing: one call per
 * whole frame, read as the handler's message type, and a reply sent back as one frame. The type is
 * {@code ByteBuffer} (a view of the frame, valid during the call), {@code byte[]}, {@code String} (in
 * the listener's charset), or any type the listener's {@link MessageMapper} reads. A frame that does
 * not read as that type closes its connection, {@code onError} hearing of an {@link InvalidMessageException}.
 *
 * @param <T> the message type
 */
public interface MessageHandler<T> extends ConnectionHandler {

    /** @return the type messages are read as */
    Class<T> messageType();

    /**
     * A whole message arrived.
     * @param connection the connection
     * @param message the message
     * @return a reply to send, as {@link Connection#send} takes it, or {@code null}
     * @throws Exception to close the connection
     */
    @Nullable Object onMessage(Connection connection, T message) throws Exception;

    /** Reads the frame as the message type, and sends the reply back. */
    @Override
    default void onData(Connection connection, ByteBuffer frame) throws Exception {
        Object reply = onMessage(connection, connection.readMessage(frame, messageType()));
        if (reply != null) {
            connection.send(reply);
        }
    }
}
