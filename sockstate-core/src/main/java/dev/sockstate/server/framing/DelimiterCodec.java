package dev.sockstate.server.framing;

import java.nio.ByteBuffer;
import java.util.HexFormat;

/** Frames ended by a byte sequence, stripped on the way in and added on the way out. */
final class DelimiterCodec implements FrameDecoder, FrameEncoder {

    private final byte[] delimiter;

    DelimiterCodec(byte[] delimiter) {
        if (delimiter == null || delimiter.length == 0) {
            throw new IllegalArgumentException("A delimiter is at least one byte");
        }
        this.delimiter = delimiter.clone();
    }

    @Override
    public long frameLength(ByteBuffer in) {
        return frameLength(in, 0);
    }

    @Override
    public long frameLength(ByteBuffer in, int searched) {
        byte[] delimiter = this.delimiter;
        int start = in.position();
        int last = in.limit() - delimiter.length;
        // A delimiter may have begun in the last bytes searched.
        int i = start + Math.max(0, searched - delimiter.length + 1);
        while (i <= last) {
            i = ByteSearch.indexOf(in, i, last + 1, delimiter[0]);
            if (i < 0) {
                return MORE;
            }
            if (matchesAt(in, i)) {
                return i - start + delimiter.length;
            }
            i++;
        }
        return MORE;
    }

    private boolean matchesAt(ByteBuffer in, int index) {
        for (int j = 1; j < this.delimiter.length; j++) {
            if (in.get(index + j) != this.delimiter[j]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int trailerLength(ByteBuffer frame) {
        return this.delimiter.length;
    }

    @Override
    public int overhead(int contentLength) {
        return this.delimiter.length;
    }

    @Override
    public void encode(ByteBuffer content, ByteBuffer out) {
        out.put(content).put(this.delimiter);
    }

    @Override
    public String toString() {
        return "delimiter " + HexFormat.of().formatHex(this.delimiter);
    }
}
