package dev.sockstate.spring.message;

import dev.sockstate.server.MessageMapper;
import java.nio.ByteBuffer;
import tools.jackson.databind.json.JsonMapper;

/**
 * One JSON document per message, through the application's Jackson {@link JsonMapper}; needs Jackson
 * (an optional dependency of this module) on the class path.
 */
public final class JsonMessageMapper implements MessageMapper {

    private final JsonMapper mapper;

    /** @param mapper reads and writes the JSON documents */
    public JsonMessageMapper(JsonMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public boolean canRead(Class<?> type) {
        return !type.isPrimitive();
    }

    @Override
    public boolean canWrite(Class<?> type) {
        return !type.isPrimitive();
    }

    @Override
    public <T> T read(ByteBuffer message, Class<T> type) {
        if (message.hasArray()) {
            return this.mapper.readValue(message.array(), message.arrayOffset() + message.position(), message.remaining(), type);
        }
        byte[] bytes = new byte[message.remaining()];
        message.get(bytes);
        return this.mapper.readValue(bytes, type);
    }

    @Override
    public ByteBuffer write(Object message) {
        return ByteBuffer.wrap(this.mapper.writeValueAsBytes(message));
    }

    @Override
    public String toString() {
        return "JSON (Jackson)";
    }
}
