package dev.sockstate.server.framing;

import java.nio.ByteBuffer;

/** Records of one length, nothing added or stripped. */
final class FixedLengthCodec implements FrameDecoder, FrameEncoder {

    private final int length;

    FixedLengthCodec(int length) {
        if (length < 1) {
            throw new IllegalArgumentException("A fixed-length frame is at least one byte, not " + length);
        }
        this.length = length;
    }

    /** @return every frame's length */
    int length() {
        return this.length;
    }

    @Override
    public long frameLength(ByteBuffer in) {
        return this.length;
    }

    @Override
    public int overhead(int contentLength) {
        return 0;
    }

    @Override
    public void encode(ByteBuffer content, ByteBuffer out) throws FramingException {
        if (content.remaining() != this.length) {
            throw new FramingException(FramingException.Reason.UNENCODABLE, "A fixed-length frame is " + this.length + " bytes, not " + content.remaining());
        }
        out.put(content);
    }

    @Override
    public String toString() {
        return "fixed " + this.length + " bytes";
    }
}
