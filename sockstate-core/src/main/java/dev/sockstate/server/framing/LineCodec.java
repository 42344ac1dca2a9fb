package dev.sockstate.server.framing;

import java.nio.ByteBuffer;

/** Lines ended by LF, a CR before it stripped too; LF added on the way out. */
final class LineCodec implements FrameDecoder, FrameEncoder {

    static final LineCodec INSTANCE = new LineCodec();

    private static final byte CR = '\r';

    private static final byte LF = '\n';

    private LineCodec() {
    }

    @Override
    public long frameLength(ByteBuffer in) {
        return frameLength(in, 0);
    }

    @Override
    public long frameLength(ByteBuffer in, int searched) {
        int start = in.position();
        int end = ByteSearch.indexOf(in, start + searched, in.limit(), LF);
        return (end < 0) ? MORE : end - start + 1;
    }

    @Override
    public int trailerLength(ByteBuffer frame) {
        int end = frame.limit();
        return (end - frame.position() >= 2 && frame.get(end - 2) == CR) ? 2 : 1;
    }

    @Override
    public int overhead(int contentLength) {
        return 1;
    }

    @Override
    public void encode(ByteBuffer content, ByteBuffer out) {
        out.put(content).put(LF);
    }

    @Override
    public String toString() {
        return "line";
    }
}
