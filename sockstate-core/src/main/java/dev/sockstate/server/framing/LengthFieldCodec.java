package dev.sockstate.server.framing;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Frames whose header holds their length, as Netty's {@code LengthFieldBasedFrameDecoder} reads
 * them: the field at {@code offset}, {@code length} bytes (1, 2, 3, 4 or 8) in the given byte order,
 * unsigned but for 8 bytes; the frame is {@code offset + length + value + adjustment} bytes long.
 * The first {@code strip} bytes of the header (none, some or all of it) are not passed to the
 * handler. The encoder writes what the decoder reads: the stripped bytes first (zeros, which the
 * handler cannot give), then the content, and then fills in the length field wherever it lies.
 */
final class LengthFieldCodec implements FrameDecoder, FrameEncoder {

    private final int offset;

    private final int length;

    private final ByteOrder order;

    private final int adjustment;

    private final int strip;

    LengthFieldCodec(int offset, int length, ByteOrder order, int adjustment, int strip) {
        if (offset < 0) {
            throw new IllegalArgumentException("A length field's offset is zero or more, not " + offset);
        }
        if (length != 1 && length != 2 && length != 3 && length != 4 && length != 8) {
            throw new IllegalArgumentException("A length field is 1, 2, 3, 4 or 8 bytes, not " + length);
        }
        if (order == null) {
            throw new IllegalArgumentException("A length field needs a byte order");
        }
        if (strip < 0 || strip > offset + length) {
            throw new IllegalArgumentException("Bytes to strip are 0 to the whole header (" + (offset + length)
                    + " bytes: offset and field), not " + strip + ", so that frames can be written as they are read");
        }
        this.offset = offset;
        this.length = length;
        this.order = order;
        this.adjustment = adjustment;
        this.strip = strip;
    }

    private int headerBytes() {
        return this.offset + this.length;
    }

    @Override
    public long frameLength(ByteBuffer in) throws FramingException {
        if (in.remaining() < headerBytes()) {
            return MORE;
        }
        long value = readField(in, in.position() + this.offset);
        if (value < 0) {
            throw new FramingException("Length field: a negative length, " + value);
        }
        long frame = headerBytes() + value + this.adjustment;
        if (frame < headerBytes()) {
            throw new FramingException("Length field: a length of " + value + " with the adjustment of " + this.adjustment
                    + " makes a frame of " + frame + " bytes, shorter than its " + headerBytes() + "-byte header");
        }
        return frame;
    }

    private long readField(ByteBuffer in, int at) {
        boolean big = this.order == ByteOrder.BIG_ENDIAN;
        long value = 0;
        for (int i = 0; i < this.length; i++) {
            int index = big ? at + i : at + this.length - 1 - i;
            value = (value << 8) | (in.get(index) & 0xff);
        }
        return value;
    }

    @Override
    public int headerLength(ByteBuffer frame) {
        return this.strip;
    }

    @Override
    public int overhead(int contentLength) {
        return this.strip;
    }

    @Override
    public void encode(ByteBuffer content, ByteBuffer out) throws FramingException {
        int start = out.position();
        int frame = content.remaining() + overhead(content.remaining());
        if (frame < headerBytes()) {
            throw new FramingException(FramingException.Reason.UNENCODABLE, "Length field: a frame of " + frame + " bytes is shorter than its " + headerBytes()
                    + "-byte header");
        }
        long value = (long) frame - headerBytes() - this.adjustment;
        long most = (this.length == 8) ? Long.MAX_VALUE : (1L << (8 * this.length)) - 1;
        if (value < 0 || value > most) {
            throw new FramingException(FramingException.Reason.UNENCODABLE, "Length field: a frame of " + frame + " bytes needs a length of " + value
                    + ", which a " + this.length + "-byte field does not hold");
        }
        for (int i = 0; i < this.strip; i++) {
            out.put((byte) 0);
        }
        out.put(content);
        boolean big = this.order == ByteOrder.BIG_ENDIAN;
        int at = start + this.offset;
        for (int i = 0; i < this.length; i++) {
            int shift = 8 * (big ? this.length - 1 - i : i);
            out.put(at + i, (byte) (value >>> shift));
        }
    }

    @Override
    public String toString() {
        return "length-field (offset " + this.offset + ", " + this.length + " bytes " + this.order + ", adjustment " + this.adjustment
                + ", " + ((this.strip == headerBytes()) ? "header stripped" : (this.strip == 0) ? "header kept"
                        : this.strip + " header bytes stripped") + ")";
    }
}
