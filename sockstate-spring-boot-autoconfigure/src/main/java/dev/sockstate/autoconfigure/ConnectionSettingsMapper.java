package dev.sockstate.autoconfigure;

import static dev.sockstate.autoconfigure.SettingSources.PREFIX;

import dev.sockstate.autoconfigure.FramingProperties.FieldByteOrder;
import dev.sockstate.autoconfigure.FramingProperties.FramingType;
import dev.sockstate.autoconfigure.FramingProperties.LengthField;
import dev.sockstate.server.ConnectionSettings;
import dev.sockstate.server.MessageMapper;
import dev.sockstate.server.Setting;
import dev.sockstate.server.SocketOptions;
import dev.sockstate.server.framing.FrameDecoder;
import dev.sockstate.server.framing.FrameEncoder;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.shaping.Shaping;
import java.nio.ByteOrder;
import java.nio.charset.Charset;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

/**
 * Maps the {@link ConnectionProperties} of a listener or of a client onto the runtime's
 * {@link ConnectionSettings.Builder}: one line per setting, the same for both, each naming the
 * property the runtime's refusal of it is reported against. A setting both have is added here once.
 */
final class ConnectionSettingsMapper {

    private ConnectionSettingsMapper() {
    }

    /**
     * @param lines the owner's mapping lines
     * @param properties its properties
     * @param builder its settings' builder
     * @param sharedExecutor {@code sockstate.handler-executor}, taken where the owner names none
     * @param messageMapper reads and writes messages of the application's types, or {@code null}
     * @param beans where the executors and codecs named are
     */
    static void map(SettingSources.Lines lines, ConnectionProperties properties, ConnectionSettings.Builder<?> builder,
            String sharedExecutor, @Nullable MessageMapper messageMapper, BeanFactory beans) {
        String path = lines.path();
        require(properties.getCharset() != null, path + "charset", null, "It must be set.");
        require(properties.getMaxPendingWriteBytes() != null, path + "max-pending-write-bytes", null, "It must be set.");
        lines.from(Setting.GROUP, "group", properties::getGroup).to(builder::group);
        lines.from(() -> handlerExecutor(path, properties.getHandlerExecutor(), sharedExecutor, beans)).to(builder::handlerExecutor);
        lines.from(properties::getCharset).to(builder::charset);
        lines.from(Setting.FRAMING, "framing.type", () -> framing(path + "framing.", properties.getFraming(), properties.getCharset(), beans))
                .to(builder::framing);
        lines.from(() -> messageMapper).to(builder::messageMapper);
        lines.from(properties::isTcpNoDelay).to(builder::tcpNoDelay);
        lines.from(Setting.RECEIVE_BUFFER_SIZE, "receive-buffer-size", properties::getReceiveBufferSize).as(ConnectionSettingsMapper::bytes)
                .to(builder::receiveBufferSize);
        lines.from(Setting.SEND_BUFFER_SIZE, "send-buffer-size", properties::getSendBufferSize).as(ConnectionSettingsMapper::bytes)
                .to(builder::sendBufferSize);
        lines.from(Setting.KEEP_ALIVE, "keep-alive", () -> keepAlive(path + "keep-alive.", properties.getKeepAlive())).to(builder::keepAlive);
        lines.from(Setting.USER_TIMEOUT, "user-timeout", properties::getUserTimeout).to(builder::userTimeout);
        lines.from(Setting.LINGER, "linger", properties::getLinger).to(builder::linger);
        lines.from(Setting.NOT_SENT_LOW_WATERMARK, "not-sent-low-watermark", properties::getNotSentLowWatermark)
                .as(ConnectionSettingsMapper::bytes).to(builder::notSentLowWatermark);
        lines.from(Setting.TRAFFIC_CLASS, "traffic-class", properties::getTrafficClass).to(builder::trafficClass);
        lines.from(Setting.IDLE_TIMEOUT, "idle-timeout", properties::getIdleTimeout).to(builder::idleTimeout);
        lines.from(Setting.MAX_PENDING_WRITE_BYTES, "max-pending-write-bytes", properties::getMaxPendingWriteBytes).as(DataSize::toBytes)
                .to(builder::maxPendingWriteBytes);
        lines.from(Setting.ABORT_PENDING_WRITE_BYTES, "abort-pending-write-bytes", properties::getAbortPendingWriteBytes)
                .as(DataSize::toBytes).to(builder::abortPendingWriteBytes);
        lines.from(Setting.SHAPING, "shaping", () -> shaping(path + "shaping.", properties.getShaping())).to(builder::shaping);
    }

    /** @return the shaping the properties ask for, {@link Shaping#NONE} without a rate */
    static Shaping shaping(String path, ConnectionProperties.Shaping properties) {
        return new Shaping(rate(path + "connection-read", properties.getConnectionRead()),
                rate(path + "connection-write", properties.getConnectionWrite()), rate(path + "total-read", properties.getTotalRead()),
                rate(path + "total-write", properties.getTotalWrite()));
    }

    /** @return a rate in bytes a second, 0 when not set */
    private static long rate(String property, @Nullable DataSize rate) {
        require(rate == null || rate.toBytes() > 0, property, rate, "A shaping rate is a positive size a second, such as 512KB;"
                + " leave it out for no limit.");
        return (rate != null) ? rate.toBytes() : 0;
    }

    /** @return the keep-alive the properties ask for: on when enabled or when any of its timing is set; {@code null} for none */
    private static SocketOptions.@Nullable KeepAlive keepAlive(String path, ConnectionProperties.KeepAlive properties) {
        boolean timed = properties.getIdle() != null || properties.getInterval() != null || properties.getCount() != null;
        if (Boolean.FALSE.equals(properties.getEnabled())) {
            require(!timed, path + "enabled", false, "Keep-alive is off, yet its idle, interval or count is set: enable it or leave"
                    + " them out.");
            return null;
        }
        if (!timed && !Boolean.TRUE.equals(properties.getEnabled())) {
            return null;
        }
        return new SocketOptions.KeepAlive(properties.getIdle(), properties.getInterval(),
                (properties.getCount() != null) ? properties.getCount() : 0);
    }

    /** @return the owner's handler executor, or else the shared one; {@code null} for the workers */
    private static @Nullable Executor handlerExecutor(String path, @Nullable String own, String shared, BeanFactory beans) {
        return (own != null) ? executor(path + "handler-executor", own, beans) : executor("handler-executor", shared, beans);
    }

    /** @return the framing the properties describe, or {@code null} for raw reads */
    private static @Nullable Framing framing(String path, FramingProperties properties, Charset charset, BeanFactory beans) {
        FramingType type = properties.getType();
        require(properties.getCodec() == null || type == FramingType.CUSTOM, path + "codec", properties.getCodec(),
                "A codec is named only with framing.type custom.");
        Framing framing;
        try {
            framing = switch (type) {
                case NONE -> null;
                case LINE -> Framing.line();
                case DELIMITER -> {
                    String delimiter = properties.getDelimiter();
                    require(delimiter != null && !delimiter.isEmpty(), path + "delimiter", delimiter,
                            "Delimiter framing needs the bytes that end a frame.");
                    yield Framing.delimiter(delimiter.getBytes(charset));
                }
                case LENGTH_FIELD -> lengthField(properties.getLengthField());
                case FIXED -> {
                    require(properties.getFixedLength() != null, path + "fixed-length", null, "Fixed framing needs the frames' length.");
                    yield Framing.fixed(bytes(properties.getFixedLength()));
                }
                case OCTET_COUNTING -> Framing.octetCounting();
                case CUSTOM -> codec(path + "codec", properties.getCodec(), beans);
            };
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + path + "type", type, ex.getMessage());
        }
        if (framing == null) {
            return null;
        }
        try {
            framing = framing.withMaxFrameSize(bytes(properties.getMaxFrameSize()));
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + path + "max-frame-size", properties.getMaxFrameSize(),
                    ex.getMessage());
        }
        try {
            framing = framing.withFrameTimeout(properties.getFrameTimeout());
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + path + "frame-timeout", properties.getFrameTimeout(),
                    ex.getMessage());
        }
        if (properties.getMaxUnfinishedBytes() == null) {
            return framing;
        }
        try {
            return framing.withMaxUnfinishedBytes(properties.getMaxUnfinishedBytes().toBytes());
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + path + "max-unfinished-bytes",
                    properties.getMaxUnfinishedBytes(), ex.getMessage());
        }
    }

    private static Framing lengthField(LengthField field) {
        int strip = (field.getStrip() != null) ? field.getStrip() : field.getOffset() + field.getLength();
        ByteOrder order = (field.getByteOrder() == FieldByteOrder.LITTLE_ENDIAN) ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
        return Framing.lengthField(field.getOffset(), field.getLength(), order, field.getAdjustment(), strip);
    }

    private static Framing codec(String path, @Nullable String name, BeanFactory beans) {
        require(name != null && !name.isBlank(), path, name, "Custom framing needs the name of a FrameDecoder bean.");
        Object codec;
        try {
            codec = beans.getBean(name);
        }
        catch (NoSuchBeanDefinitionException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + path, name, "No bean named '" + name + "' exists.");
        }
        require(codec instanceof FrameDecoder, path, name, "The bean '" + name + "' is a " + codec.getClass().getName()
                + ", not a FrameDecoder.");
        FrameEncoder encoder = (codec instanceof FrameEncoder frameEncoder) ? frameEncoder : FrameEncoder.AS_IS;
        return Framing.of((FrameDecoder) codec, encoder);
    }

    /**
     * @param path the property naming the executor, below {@code sockstate.}
     * @param name none, application, or a bean's name
     * @param beans where the bean is
     * @return the executor, {@code null} for none
     */
    static @Nullable Executor executor(String path, @Nullable String name, BeanFactory beans) {
        if (name == null || name.isBlank() || "none".equals(name)) {
            return null;
        }
        String beanName = "application".equals(name) ? TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME : name;
        try {
            return beans.getBean(beanName, Executor.class);
        }
        catch (NoSuchBeanDefinitionException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + path, name, "No Executor bean named '" + beanName
                    + "' exists; use none, application (the application task executor) or the name of a TaskExecutor bean.");
        }
    }

    /** @return the size in bytes, clamped to the int range (the runtime refuses what is out of its own range) */
    static int bytes(DataSize size) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, size.toBytes()));
    }

    private static void require(boolean valid, String property, @Nullable Object value, String reason) {
        if (!valid) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + property, value, reason);
        }
    }
}
