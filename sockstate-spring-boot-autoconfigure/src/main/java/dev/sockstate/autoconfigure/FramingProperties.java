package dev.sockstate.autoconfigure;

import dev.sockstate.server.framing.Framing;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/** Framing of one listener: {@code sockstate.listeners.<name>.framing.*}. */
public class FramingProperties {

    /** How frames are found in a TCP connection's bytes. */
    public enum FramingType {

        /** Raw reads: each call gets what one read returned. */
        NONE,

        /** Lines ended by LF (a CR before it is stripped too); replies get an LF. */
        LINE,

        /** Frames ended by the delimiter. */
        DELIMITER,

        /** Frames whose header holds their length. */
        LENGTH_FIELD,

        /** Records of one length. */
        FIXED,

        /** RFC 6587 octet counting: a decimal length, a space, the message (syslog over TCP). */
        OCTET_COUNTING,

        /** The decoder (and encoder) bean named by codec. */
        CUSTOM
    }

    /** How frames are found: none, line, delimiter, length-field, fixed, octet-counting or custom. */
    private FramingType type = FramingType.NONE;

    /** Longest frame, header and terminator included; a longer one closes its connection. */
    private DataSize maxFrameSize = DataSize.ofKilobytes(64);

    /** How long a frame may take from its first byte to its last; a connection whose frame takes longer is closed; 0 for no limit. */
    private Duration frameTimeout = Framing.DEFAULT_FRAME_TIMEOUT;

    /** Most bytes the unfinished frames of all the connections hold together (64MB, or four of the longest frames if more); a connection whose frame would pass it is closed; 0 for no limit. */
    private @Nullable DataSize maxUnfinishedBytes;

    /** Bytes that end a frame (delimiter framing), as text in the listener's charset. */
    private @Nullable String delimiter;

    /** Length of every frame (fixed framing). */
    private @Nullable DataSize fixedLength;

    /** Where the length is (length-field framing). */
    @NestedConfigurationProperty
    private final LengthField lengthField = new LengthField();

    /** Name of a bean implementing FrameDecoder, and FrameEncoder unless replies are written framed (custom framing). */
    private @Nullable String codec;

    public Duration getFrameTimeout() {
        return this.frameTimeout;
    }

    public void setFrameTimeout(Duration frameTimeout) {
        this.frameTimeout = frameTimeout;
    }

    public @Nullable DataSize getMaxUnfinishedBytes() {
        return this.maxUnfinishedBytes;
    }

    public void setMaxUnfinishedBytes(@Nullable DataSize maxUnfinishedBytes) {
        this.maxUnfinishedBytes = maxUnfinishedBytes;
    }

    public FramingType getType() {
        return this.type;
    }

    public void setType(FramingType type) {
        this.type = type;
    }

    public DataSize getMaxFrameSize() {
        return this.maxFrameSize;
    }

    public void setMaxFrameSize(DataSize maxFrameSize) {
        this.maxFrameSize = maxFrameSize;
    }

    public @Nullable String getDelimiter() {
        return this.delimiter;
    }

    public void setDelimiter(@Nullable String delimiter) {
        this.delimiter = delimiter;
    }

    public @Nullable DataSize getFixedLength() {
        return this.fixedLength;
    }

    public void setFixedLength(@Nullable DataSize fixedLength) {
        this.fixedLength = fixedLength;
    }

    public LengthField getLengthField() {
        return this.lengthField;
    }

    public @Nullable String getCodec() {
        return this.codec;
    }

    public void setCodec(@Nullable String codec) {
        this.codec = codec;
    }

    /** A length field, as Netty's LengthFieldBasedFrameDecoder reads it. */
    public static class LengthField {

        /** Where the field starts in the frame, in bytes. */
        private int offset;

        /** Bytes of the field: 1, 2, 3, 4 or 8. */
        private int length = 4;

        /** Byte order of the field: big-endian or little-endian. */
        private FieldByteOrder byteOrder = FieldByteOrder.BIG_ENDIAN;

        /** Added to the field's value to get the bytes that follow the field. */
        private int adjustment;

        /** Header bytes the handler does not see, from the frame's start: 0 to offset plus length; the whole header when not set. */
        private @Nullable Integer strip;

        public int getOffset() {
            return this.offset;
        }

        public void setOffset(int offset) {
            this.offset = offset;
        }

        public int getLength() {
            return this.length;
        }

        public void setLength(int length) {
            this.length = length;
        }

        public FieldByteOrder getByteOrder() {
            return this.byteOrder;
        }

        public void setByteOrder(FieldByteOrder byteOrder) {
            this.byteOrder = byteOrder;
        }

        public int getAdjustment() {
            return this.adjustment;
        }

        public void setAdjustment(int adjustment) {
            this.adjustment = adjustment;
        }

        public @Nullable Integer getStrip() {
            return this.strip;
        }

        public void setStrip(@Nullable Integer strip) {
            this.strip = strip;
        }
    }

    /** Byte order of a length field. */
    public enum FieldByteOrder {

        /** Most significant byte first (network order). */
        BIG_ENDIAN,

        /** Least significant byte first. */
        LITTLE_ENDIAN
    }
}
