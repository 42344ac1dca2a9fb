package dev.sockstate.server.engine;

import dev.sockstate.server.InvalidMessageException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.MessageMapper;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import org.jspecify.annotations.Nullable;

/**
 * A listener's messages as its handlers read and send them: bytes as they are, text in the
 * listener's charset, other types through its {@link MessageMapper}.
 */
final class Messages {

    /** How messages name the listener or client. */
    private final String listener;

    private final Charset charset;

    private final @Nullable MessageMapper mapper;

    /** @param label how messages name the listener or client: {@code Listener 'echo'} */
    Messages(ListenerSettings settings, String label) {
        this.listener = label;
        this.charset = settings.connection().charset();
        this.mapper = settings.connection().messageMapper();
    }

    /**
     * @param message one whole message, from position to limit
     * @param type what to read it as
     * @return the message as that type; a {@code ByteBuffer} is the message itself
     * @throws InvalidMessageException when the mapper cannot read the bytes as that type
     */
    <T> T read(ByteBuffer message, Class<T> type) throws InvalidMessageException {
        if (type == ByteBuffer.class) {
            return type.cast(message);
        }
        if (type == byte[].class) {
            byte[] bytes = new byte[message.remaining()];
            message.duplicate().get(bytes);
            return type.cast(bytes);
        }
        if (type == String.class || type == CharSequence.class) {
            return type.cast(this.charset.decode(message.duplicate()).toString());
        }
        if (this.mapper == null || !this.mapper.canRead(type)) {
            throw new IllegalArgumentException(this.listener + " has no message mapper that reads " + type.getName()
                    + "; read ByteBuffer, byte[] or String, or give the listener a MessageMapper for it");
        }
        try {
            return this.mapper.read(message.duplicate(), type);
        }
        catch (Exception ex) {
            throw new InvalidMessageException(this.listener + ": a message of " + message.remaining()
                    + " bytes does not read as " + type.getName() + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * @param message a message to send
     * @return its bytes
     * @throws IllegalArgumentException when the listener has no mapper that writes its type, or the mapper failed
     */
    ByteBuffer write(Object message) {
        if (message instanceof ByteBuffer buffer) {
            return buffer;
        }
        if (message instanceof byte[] bytes) {
            return ByteBuffer.wrap(bytes);
        }
        if (message instanceof CharSequence text) {
            return this.charset.encode(CharBuffer.wrap(text));
        }
        if (message == null) {
            throw new IllegalArgumentException(this.listener + " sends no null message");
        }
        if (this.mapper == null || !this.mapper.canWrite(message.getClass())) {
            throw new IllegalArgumentException(this.listener + " has no message mapper that writes "
                    + message.getClass().getName() + "; send ByteBuffer, byte[] or String, or give the listener a MessageMapper for it");
        }
        try {
            return this.mapper.write(message);
        }
        catch (Exception ex) {
            throw new IllegalArgumentException(this.listener + " could not write a " + message.getClass().getName()
                    + ": " + ex.getMessage(), ex);
        }
    }
}
