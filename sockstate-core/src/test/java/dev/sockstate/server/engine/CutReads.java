package dev.sockstate.server.engine;

import java.util.Arrays;
import java.util.Random;

/**
 * A peer's bytes handed to a connection in memory in reads a seed cuts, as the fuzz targets of the
 * decoders hand them: so that a decoder is asked at every place a frame can be cut.
 */
public final class CutReads {

    private CutReads() {
    }

    /**
     * Hands the input over in reads of 1 to {@code most + 1} bytes (no more than the input's length
     * plus one), as the seed draws them, until all of it went or the connection closed.
     * @param connection the connection
     * @param input the bytes
     * @param seed what cuts them
     * @param most the longest read drawn, less one
     */
    public static void writeInReads(EmbeddedConnection connection, byte[] input, long seed, int most) {
        Random reads = new Random(seed);
        int at = 0;
        while (at < input.length && connection.isOpen()) {
            int length = Math.min(input.length - at, 1 + reads.nextInt(1 + Math.min(input.length, most)));
            connection.writeInbound(Arrays.copyOfRange(input, at, at + length));
            at += length;
        }
    }
}
