package dev.sockstate.server.framing;

import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * A peer's bytes that do not frame (a malformed or negative length, a frame over the listener's
 * limit), or content that cannot be framed, with its {@link Reason} a handler can switch on. The
 * handler's {@code onError} receives it, its message naming the listener and what was wrong, and may
 * still answer (a protocol error reply); then the connection closes. A decoder that refuses one
 * frame whose length it knows may instead ask for it to be {@linkplain #skipping skipped}: the
 * handler hears of it in {@code onError} as the frame's turn comes, the frame's bytes are discarded
 * as they arrive, and the connection goes on with the next frame (as memcached answers
 * {@code SERVER_ERROR object too large for cache} and discards the value). Content the handler wrote
 * that cannot be framed aborts the connection.
 */
public class FramingException extends IOException {

    private static final long serialVersionUID = 1L;

    /** Why bytes did not frame. */
    public enum Reason {

        /** The bytes cannot start a frame: a malformed or negative length, a byte the protocol does not allow there. */
        MALFORMED,

        /** A frame longer than allowed: over the listener's max-frame-size, or over a limit of the protocol's own. */
        TOO_LARGE,

        /** The decoder broke its contract on these bytes: it threw, or answered a length or a header that cannot be. */
        DECODER_FAILED,

        /** Content the handler wrote that its framing cannot carry (too long for a length field, say). */
        UNENCODABLE,

        /**
         * The connection's unfinished frame would take the unfinished frames of its listener's (or
         * client's) connections past their budget ({@link Framing#maxUnfinishedBytes()}).
         */
        UNFINISHED_LIMIT
    }

    private final Reason reason;

    /** The refused frame's length, whose bytes are skipped while the connection goes on; 0 when the connection closes. */
    private final long skipLength;

    /**
     * Bytes that cannot start a frame ({@link Reason#MALFORMED}); the connection closes.
     * @param message what was wrong
     */
    public FramingException(String message) {
        this(Reason.MALFORMED, message, null, 0);
    }

    /**
     * Bytes that cannot start a frame ({@link Reason#MALFORMED}); the connection closes.
     * @param message what was wrong
     * @param cause the failure behind it
     */
    public FramingException(String message, Throwable cause) {
        this(Reason.MALFORMED, message, cause, 0);
    }

    /**
     * Bytes that do not frame, for the reason given; the connection closes.
     * @param reason why
     * @param message what was wrong
     */
    public FramingException(Reason reason, String message) {
        this(reason, message, null, 0);
    }

    /**
     * Bytes that do not frame, for the reason given; the connection closes.
     * @param reason why
     * @param message what was wrong
     * @param cause the failure behind it
     */
    public FramingException(Reason reason, String message, Throwable cause) {
        this(reason, message, cause, 0);
    }

    private FramingException(Reason reason, String message, @Nullable Throwable cause, long skipLength) {
        super(message, cause);
        if (reason == null) {
            throw new IllegalArgumentException("A framing failure needs a reason");
        }
        if (skipLength < 0) {
            throw new IllegalArgumentException("A refused frame to skip has a length of at least 1 byte, not " + skipLength);
        }
        this.reason = reason;
        this.skipLength = skipLength;
    }

    /**
     * Refuses the one frame that starts where the decoder was asked, of the length it knows from its
     * header, and keeps the connection: the handler's {@code onError} hears of it in the frame's turn
     * (after the frames before it, before those after it) and may answer; the frame's bytes are
     * discarded, those at hand and those still to come, however long it is; framing goes on after it.
     * @param frameLength the whole refused frame's length, header and terminator included, at least 1
     * @param reason why it is refused ({@link Reason#TOO_LARGE}, say)
     * @param message what was wrong
     * @return the refusal, for the decoder to throw
     */
    public static FramingException skipping(long frameLength, Reason reason, String message) {
        if (frameLength < 1) {
            throw new IllegalArgumentException("A refused frame to skip has a length of at least 1 byte, not " + frameLength);
        }
        return new FramingException(reason, message, null, frameLength);
    }

    /**
     * @param prefix what goes before the message: who refused the bytes (the listener's name, say)
     * @return this refusal with its message prefixed, its reason and what it skips kept, this as its cause
     */
    public FramingException prefixed(String prefix) {
        return new FramingException(this.reason, prefix + getMessage(), this, this.skipLength);
    }

    /** @return why the bytes did not frame */
    public Reason reason() {
        return this.reason;
    }

    /** @return whether the connection goes on after the refused frame, whose bytes are skipped */
    public boolean skips() {
        return this.skipLength > 0;
    }

    /** @return the refused frame's length, whose bytes are skipped; 0 when the connection closes */
    public long skipLength() {
        return this.skipLength;
    }
}
