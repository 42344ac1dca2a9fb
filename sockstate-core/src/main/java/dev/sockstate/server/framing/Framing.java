package dev.sockstate.server.framing;

import java.nio.ByteOrder;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How a TCP listener's connections are framed: the decoder that finds frames in what arrives, the
 * encoder that frames what the handler writes, the longest frame allowed, and the bounds of what
 * unfinished frames may hold. A longer frame, seen or announced, closes its connection with a
 * {@link FramingException}, and no connection ever keeps more than that many bytes of an
 * unfinished frame. A frame begun and not finished within the frame timeout closes its connection
 * (a peer that trickles a frame, or stops halfway, holds nothing for long); and the unfinished
 * frames of all the listener's connections together hold at most {@code maxUnfinishedBytes}: the
 * connection whose frame would pass it is closed, its handler told with a {@link FramingException}
 * ({@link FramingException.Reason#UNFINISHED_LIMIT}), so that many connections each keeping a
 * frame just short of the longest cannot take the heap.
 *
 * @param decoder finds frames in what arrives
 * @param encoder frames what the handler writes
 * @param maxFrameSize the longest frame in bytes, header and terminator included
 * @param frameTimeout how long a frame may take from its first byte to its last; {@code null} for no limit
 * @param maxUnfinishedBytes the most bytes the unfinished frames of the listener's (or client's)
 * connections hold together, at least {@code maxFrameSize}; 0 for no limit
 */
public record Framing(FrameDecoder decoder, FrameEncoder encoder, int maxFrameSize, @Nullable Duration frameTimeout,
        long maxUnfinishedBytes) {

    /** The longest frame unless told otherwise: 64 KiB. */
    public static final int DEFAULT_MAX_FRAME_SIZE = 64 * 1024;

    /** The longest frame that can be allowed: 1 GiB. */
    public static final int MOST_MAX_FRAME_SIZE = 1 << 30;

    /** How long a frame may take from its first byte to its last unless told otherwise: a minute. */
    public static final Duration DEFAULT_FRAME_TIMEOUT = Duration.ofMinutes(1);

    /** The longest frame timeout: a week (the idle timeout closes what is quiet longer). */
    public static final Duration MOST_FRAME_TIMEOUT = Duration.ofDays(7);

    /**
     * Frames as they are found and written, with the default frame timeout and budget of unfinished bytes.
     * @param decoder finds frames in what arrives
     * @param encoder frames what the handler writes
     * @param maxFrameSize the longest frame in bytes, header and terminator included
     */
    public Framing(FrameDecoder decoder, FrameEncoder encoder, int maxFrameSize) {
        this(decoder, encoder, maxFrameSize, DEFAULT_FRAME_TIMEOUT, defaultBudget(maxFrameSize));
    }

    /**
     * The bytes unfinished frames hold together unless told otherwise: 64 MiB, or four of the longest
     * frames where that is more ({@link #withMaxFrameSize} keeps a default budget so).
     */
    public static final long DEFAULT_MAX_UNFINISHED_BYTES = 64L * 1024 * 1024;

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
        if (frameTimeout != null && (frameTimeout.isNegative() || frameTimeout.compareTo(MOST_FRAME_TIMEOUT) > 0)) {
            throw new IllegalArgumentException("The frame timeout is zero (none) or positive up to " + MOST_FRAME_TIMEOUT.toDays()
                    + " days, not " + frameTimeout);
        }
        frameTimeout = (frameTimeout == null || frameTimeout.isZero()) ? null : frameTimeout;
        if (maxUnfinishedBytes != 0 && maxUnfinishedBytes < maxFrameSize) {
            throw new IllegalArgumentException("The unfinished frames' budget is 0 (none) or at least the longest frame, "
                    + maxFrameSize + " bytes, not " + maxUnfinishedBytes + " bytes");
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
        int most = Math.max(DEFAULT_MAX_FRAME_SIZE, length);
        return new Framing(codec, codec, most, DEFAULT_FRAME_TIMEOUT, defaultBudget(most));
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
        return new Framing(decoder, encoder, DEFAULT_MAX_FRAME_SIZE, DEFAULT_FRAME_TIMEOUT, DEFAULT_MAX_UNFINISHED_BYTES);
    }

    /**
     * @param bytes the longest frame in bytes, header and terminator included
     * @return this framing with that limit; a budget of unfinished bytes left at its default grows to
     * four such frames where that is more than {@link #DEFAULT_MAX_UNFINISHED_BYTES}
     */
    public Framing withMaxFrameSize(int bytes) {
        long budget = this.maxUnfinishedBytes;
        if (budget == defaultBudget(this.maxFrameSize)) {
            budget = defaultBudget(bytes);
        }
        return new Framing(this.decoder, this.encoder, bytes, this.frameTimeout, budget);
    }

    /**
     * @param timeout how long a frame may take from its first byte to its last; {@code null} or zero for no limit
     * @return this framing with that limit
     */
    public Framing withFrameTimeout(@Nullable Duration timeout) {
        return new Framing(this.decoder, this.encoder, this.maxFrameSize, timeout, this.maxUnfinishedBytes);
    }

    /**
     * @param bytes the most bytes the unfinished frames of the connections hold together, at least
     * the longest frame; 0 for no limit
     * @return this framing with that budget
     */
    public Framing withMaxUnfinishedBytes(long bytes) {
        return new Framing(this.decoder, this.encoder, this.maxFrameSize, this.frameTimeout, bytes);
    }

    private static long defaultBudget(int maxFrameSize) {
        return Math.max(DEFAULT_MAX_UNFINISHED_BYTES, 4L * maxFrameSize);
    }

    @Override
    public String toString() {
        String decoded = this.decoder.toString();
        String encoded = this.encoder.toString();
        return (this.decoder == this.encoder ? decoded : decoded + " / " + encoded) + ", frames up to " + this.maxFrameSize + " bytes"
                + ((this.frameTimeout != null) ? " within " + this.frameTimeout : "")
                + ((this.maxUnfinishedBytes != 0) ? ", unfinished ones " + this.maxUnfinishedBytes + " bytes together at most" : "");
    }
}
