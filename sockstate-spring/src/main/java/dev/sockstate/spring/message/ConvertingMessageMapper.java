package dev.sockstate.spring.message;

import dev.sockstate.server.MessageMapper;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;
import org.springframework.core.convert.ConversionService;

/**
 * Reads and writes messages through a {@link ConversionService}'s converters from {@code byte[]} to a
 * type and back (in Spring Boot, the application's {@code Converter} beans), and through another
 * mapper, JSON say, for the types no converter takes. Give it to a listener with
 * {@code ListenerSettings.Builder.messageMapper} for {@link dev.sockstate.spring.handler.OnMessage}
 * methods that take or return a type of the application's own.
 */
public final class ConvertingMessageMapper implements MessageMapper {

    private final ConversionService converters;

    /** JSON, or {@code null} without Jackson. */
    private final @Nullable MessageMapper json;

    /**
     * @param converters converts {@code byte[]} to the message types and back
     * @param json reads and writes the types the converters do not take, or {@code null} for none
     * (a {@link JsonMessageMapper}, say)
     */
    public ConvertingMessageMapper(ConversionService converters, @Nullable MessageMapper json) {
        this.converters = converters;
        this.json = json;
    }

    @Override
    public boolean canRead(Class<?> type) {
        return this.converters.canConvert(byte[].class, type) || (this.json != null && this.json.canRead(type));
    }

    @Override
    public boolean canWrite(Class<?> type) {
        return this.converters.canConvert(type, byte[].class) || (this.json != null && this.json.canWrite(type));
    }

    @Override
    public <T> T read(ByteBuffer message, Class<T> type) throws Exception {
        if (this.converters.canConvert(byte[].class, type)) {
            byte[] bytes = new byte[message.remaining()];
            message.get(bytes);
            return this.converters.convert(bytes, type);
        }
        return json().read(message, type);
    }

    @Override
    public ByteBuffer write(Object message) throws Exception {
        if (this.converters.canConvert(message.getClass(), byte[].class)) {
            return ByteBuffer.wrap(this.converters.convert(message, byte[].class));
        }
        return json().write(message);
    }

    private MessageMapper json() {
        if (this.json == null) {
            throw new IllegalStateException("No Converter bean and no Jackson for this type");
        }
        return this.json;
    }

    @Override
    public String toString() {
        return "converters" + ((this.json != null) ? " and " + this.json : "");
    }
}
