package dev.sockstate.server.framing;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Finding one byte in a buffer eight bytes at a time: each long read is tested for the byte in all
 * its lanes at once (SWAR), so that a line's end in a kilobyte of text costs a hundred or so steps,
 * not a thousand.
 */
final class ByteSearch {

    private static final long LOW_SEVEN_BITS = 0x7F7F7F7F7F7F7F7FL;

    private ByteSearch() {
    }

    /**
     * @param in the buffer, read with absolute gets (position and limit untouched)
     * @param from the first index to look at
     * @param to the index after the last one
     * @param value the byte
     * @return the index of the first byte equal to {@code value}, or -1
     */
    static int indexOf(ByteBuffer in, int from, int to, byte value) {
        long pattern = (value & 0xFFL) * 0x0101010101010101L;
        boolean littleEndian = in.order() == ByteOrder.LITTLE_ENDIAN;
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            long lanes = in.getLong(i) ^ pattern;
            // The high bit of exactly the lanes that are zero, that is equal to the byte.
            long equal = ~(((lanes & LOW_SEVEN_BITS) + LOW_SEVEN_BITS) | lanes | LOW_SEVEN_BITS);
            if (equal != 0) {
                int lane = littleEndian ? Long.numberOfTrailingZeros(equal) : Long.numberOfLeadingZeros(equal);
                return i + (lane >>> 3);
            }
        }
        for (; i < to; i++) {
            if (in.get(i) == value) {
                return i;
            }
        }
        return -1;
    }
}
