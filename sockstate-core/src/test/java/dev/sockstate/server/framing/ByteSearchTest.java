package dev.sockstate.server.framing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The eight-bytes-at-a-time search finds what a byte-by-byte one finds, in either byte order. */
class ByteSearchTest {

    @Test
    void itFindsTheFirstMatchAtEveryOffsetInEitherByteOrderAndInHeapOrDirectBuffers() {
        Random random = new Random(42);
        for (ByteBuffer buffer : new ByteBuffer[] { ByteBuffer.allocate(64), ByteBuffer.allocateDirect(64),
                ByteBuffer.allocateDirect(64).order(ByteOrder.LITTLE_ENDIAN), ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN) }) {
            for (int round = 0; round < 2000; round++) {
                for (int i = 0; i < 64; i++) {
                    // Bytes near the one sought (0x0A), and 0x8A and 0x00, which a looser lane test takes for it.
                    byte[] near = { 0x0B, 0x09, 0x00, (byte) 0x8A, 0x0A, 'x' };
                    buffer.put(i, near[random.nextInt(near.length)]);
                }
                int from = random.nextInt(64);
                int to = from + random.nextInt(65 - from);
                assertThat(ByteSearch.indexOf(buffer, from, to, (byte) 0x0A)).as("%s from %d to %d", buffer, from, to)
                        .isEqualTo(slowIndexOf(buffer, from, to, (byte) 0x0A));
            }
        }
    }

    private static int slowIndexOf(ByteBuffer buffer, int from, int to, byte value) {
        for (int i = from; i < to; i++) {
            if (buffer.get(i) == value) {
                return i;
            }
        }
        return -1;
    }
}
