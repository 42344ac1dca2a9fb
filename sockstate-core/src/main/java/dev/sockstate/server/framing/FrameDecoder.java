package dev.sockstate.server.framing;

import java.nio.ByteBuffer;

/**
 * Finds where frames end in a connection's bytes. A decoder looks at the bytes without moving them
 * and keeps no state of its own: one instance serves every connection of a listener, from any
 * thread; what it needs to resume an unfinished frame's parse the connection keeps for it
 * ({@link Progress}). Implement it for a protocol of your own (RESP, say) and name it in the listener's
 * {@link Framing}.
 */
public interface FrameDecoder {

    /** What {@link #frameLength} answers while the bytes so far do not tell a frame's length. */
    long MORE = -1;

    /** The longest frame {@link #atLeast} can announce. */
    long MOST_ANNOUNCED = 1L << 62;

    /**
     * What {@link #frameLength} answers when the bytes so far tell that the frame is at least
     * {@code length} bytes long, header and terminator included, but not yet where it ends (an array
     * whose elements each announce their own length, one of them not all arrived, say). The framing
     * asks again only once that many bytes of the frame are held, rather than at each read (a decoder
     * that keeps its {@link Progress} resumes then), and refuses the frame at once when the length is
     * over the max-frame-size, before its bytes arrive. Bytes are never kept for an announcement alone:
     * the room held for the frame grows with what arrives.
     * @param length the least length of the whole frame, from its start, between 1 and {@link #MOST_ANNOUNCED}
     * @return the answer, for {@link #frameLength} to return
     * @throws IllegalArgumentException for a length out of that range
     */
    static long atLeast(long length) {
        if (length < 1 || length > MOST_ANNOUNCED) {
            throw new IllegalArgumentException("A frame announced is between 1 and 2^62 bytes long, not " + length);
        }
        return Long.MIN_VALUE + length;
    }

    /**
     * @param answer what {@link #frameLength} answered
     * @return the least length it announced with {@link #atLeast}, or 0 when it is not such an answer
     */
    static long leastLength(long answer) {
        return (answer < MORE && answer - Long.MIN_VALUE <= MOST_ANNOUNCED) ? answer - Long.MIN_VALUE : 0;
    }

    /**
     * Tells the length of the frame that starts at the buffer's position, header and terminator
     * included, as soon as the bytes so far tell it: a length field read tells it before the rest
     * arrived, a line's terminator only with the whole line.
     * @param in the bytes from position to limit; neither is to be moved
     * @return the whole frame's length once known, else {@link #MORE}, or {@link #atLeast} a length
     * the frame is known to reach
     * @throws FramingException when the bytes cannot start a frame (a malformed length, say), which
     * closes the connection; or, made by {@link FramingException#skipping}, when this one frame is
     * refused: it is skipped, and the connection goes on
     */
    long frameLength(ByteBuffer in) throws FramingException;

    /**
     * {@link #frameLength(ByteBuffer)} for bytes of which the first ones were looked at before and
     * held no frame end: a decoder that searches for a terminator may start after them, so that a
     * frame arriving in many small reads costs no more than one arriving at once.
     * @param in the bytes from position to limit; neither is to be moved
     * @param searched how many bytes from the position an earlier call looked at and found {@link #MORE} in
     * @return the whole frame's length once known, else {@link #MORE} (or {@link #atLeast})
     * @throws FramingException when the bytes cannot start a frame
     */
    default long frameLength(ByteBuffer in, int searched) throws FramingException {
        return frameLength(in);
    }

    /**
     * {@link #frameLength(ByteBuffer, int)} for a decoder that keeps where its parse of an unfinished
     * frame got to: what it {@linkplain Progress#save saves} during one call on a connection it gets
     * back from {@link Progress#saved()} at the next call for the same frame, so that it resumes there
     * as more bytes arrive (the elements of a long array parsed so far, say) instead of parsing the
     * frame from its start again: a frame arriving in many small reads then costs no more than one
     * arriving at once. The connection keeps it only while an unfinished frame is held; at each
     * frame's start it is 0. A decoder that keeps nothing need not implement this.
     * @param in the bytes from position to limit; neither is to be moved
     * @param searched how many bytes from the position an earlier call looked at and found {@link #MORE} in
     * @param progress what the decoder saved for this frame, and where it saves more
     * @return the whole frame's length once known, else {@link #MORE} (or {@link #atLeast})
     * @throws FramingException as {@link #frameLength(ByteBuffer)}
     */
    default long frameLength(ByteBuffer in, int searched, Progress progress) throws FramingException {
        return frameLength(in, searched);
    }

    /**
     * Where a decoder keeps, per connection, how far its parse of an unfinished frame got: one number
     * of its own meaning (an offset and a count packed, say). An offset is counted from the frame's
     * start, never from the buffer's: the bytes of an unfinished frame move (into a buffer of the
     * connection's) between calls. Used by the thread that calls the decoder only.
     */
    interface Progress {

        /** @return what the decoder saved for the frame at hand, 0 at a frame's start */
        long saved();

        /** @param state what to get back at the next call for the same frame */
        void save(long state);
    }

    /**
     * @param frame one whole frame, from position to limit
     * @return how many of its first bytes are not content (a stripped header)
     */
    default int headerLength(ByteBuffer frame) {
        return 0;
    }

    /**
     * @param frame one whole frame, from position to limit
     * @return how many of its last bytes are not content (a stripped terminator)
     */
    default int trailerLength(ByteBuffer frame) {
        return 0;
    }
}
