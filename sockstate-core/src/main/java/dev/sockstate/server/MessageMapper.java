package dev.sockstate.server;

import java.nio.ByteBuffer;

/**
 * Reads a listener's messages as objects of the application's types, and writes them: JSON through
 * a mapper, or converters of the application's own. Bytes ({@code ByteBuffer}, {@code byte[]}) and
 * text ({@code String}, in the listener's charset) need none. One instance serves every connection of
 * a listener, from any thread.
 */
public interface MessageMapper {

    /**
     * @param type a handler's message type
     * @return whether {@link #read} makes messages of that type
     */
    boolean canRead(Class<?> type);

    /**
     * @param type the type of messages a handler sends
     * @return whether {@link #write} takes messages of that type
     */
    boolean canWrite(Class<?> type);

    /**
     * @param message one whole message, from position to limit, valid during the call
     * @param type what to read it as, one {@link #canRead} accepts
     * @param <T> the type
     * @return the message as that type
     * @throws Exception when the bytes are not such a message
     */
    <T> T read(ByteBuffer message, Class<T> type) throws Exception;

    /**
     * @param message an object of a type {@link #canWrite} accepts
     * @return its bytes, from position to limit
     * @throws Exception when it cannot be written
     */
    ByteBuffer write(Object message) throws Exception;
}
