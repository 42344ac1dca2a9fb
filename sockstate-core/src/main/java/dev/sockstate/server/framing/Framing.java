package dev.sockstate.server.framing;

import java.nio.ByteOrder;

/**
 * How a TCP listener's connections are framed: the decoder that finds frames in what arrives, the
 * encoder that frames what the handler writes, and the longest frame allowed. A longer frame, seen
 * or announced, closes its connection with a {@link FramingException}, and no connection ever keeps
 * more than that many bytes of an unfinished frame.
 *
 * @param decoder finds frames in what arrives
 * @param encoder frames what the handler writes
 * @param maxFrameSize the longest frame in bytes, header and terminator included
 */
public record Framing(FrameDecoder decoder, FrameEncoder encoder, int maxFrameSize) {

    /** The longest frame unless told otherwise: 64 KiB. */
    public static final int DEFAULT_MAX_FRAME_SIZE = 64 * 1024;

    /** The longest frame that can be allowed: 1 GiB. */
    public static final int MOST_MAX_FRAME_SIZE = 1 << 30;

    /** Checks the parts. */
    public Framing {
        if (decoder == null || encoder == null) {
            throw new IllegalArgumentException("Framing needs a decoder and an encoder");
        }
        if (maxFrameSize < 1 || maxFrameSize > MOST_MAX_FRAME_SIZE) {
            throw new IllegalArgumentException("The longest frame is between 1 byte and 1 GiB, not " + maxFrameSize + " bytes");
        }
        if (decoder instanceof FixedLengthCodec fixed && fixed.length() > maxFrameSize) {
            throw new IllegalArgumentException("Fixed-length frames of " + fixed.length() + " bytes are longer than the longest"
                    + " frame allowed, " + maxFrameSize + " bytes");
        }
    }

    /** @return lines ended by LF (a CR before it is stripped too); the handler's writes get an LF */
    public static Framing line() {
        return of(LineCodec.INSTANCE, LineCodec.INSTANCE);
    }

    /**
     * @param delimiter the bytes that end a frame
     * @return frames ended by those bytes, stripped on the way in and added on the way out
     */
    public static Framing delimiter(byte[] delimiter) {
        DelimiterCodec codec = new DelimiterCodec(delimiter);
        return of(codec, codec);
    }

    /**
     * Frames whose header holds their length, as Netty's {@code LengthFieldBasedFrameDecoder} reads
     * them, with the matching encoder.
     * @param offset where the field starts in the frame
     * @param length the field's bytes: 1, 2, 3, 4 or 8 (unsigned but for 8)
     * @param order the field's byte order
     * @param adjustment added to the field's value to get the bytes that follow the field
     * @param strip the header bytes the handler does not see, from the frame's start: 0 to the whole header ({@code offset + length})
     * @return that framing
     */
    public static Framing lengthField(int offset, int length, ByteOrder order, int adjustment, int strip) {
        LengthFieldCodec codec = new LengthFieldCodec(offset, length, order, adjustment, strip);
        return of(codec, codec);
    }

    /**
     * @param length every frame's length
     * @return records of that length, the longest frame allowed at least that; the handler writes whole records
     */
    public static Framing fixed(int length) {
        FixedLengthCodec codec = new FixedLengthCodec(length);
        return new Framing(codec, codec, Math.max(DEFAULT_MAX_FRAME_SIZE, length));
    }

    /** @return RFC 6587 octet counting (a decimal length, a space, the content), as syslog over TCP sends it */
    public static Framing octetCounting() {
        return of(OctetCountingCodec.INSTANCE, OctetCountingCodec.INSTANCE);
    }

    /**
     * @param decoder finds frames in what arrives
     * @param encoder frames what the handler writes ({@link FrameEncoder#AS_IS} when the handler writes whole frames)
     * @return a framing of one's own, with the default longest frame
     */
    public static Framing of(FrameDecoder decoder, FrameEncoder encoder) {
        return new Framing(decoder, encoder, DEFAULT_MAX_FRAME_SIZE);
    }

    /**
     * @param bytes the longest frame in bytes, header and terminator included
     * @return this framing with that limit
     */
    public Framing withMaxFrameSize(int bytes) {
        return new Framing(this.decoder, this.encoder, bytes);
    }

    @Override
    public String toString() {
        String decoded = this.decoder.toString();
        String encoded = this.encoder.toString();
        return (this.decoder == this.encoder ? decoded : decoded + " / " + encoded) + ", frames up to " + this.maxFrameSize + " bytes";
    }
}
