package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.framing.FramingException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each shipped framing, fuzzed (Jazzer) through a whole connection in memory ({@link EmbeddedConnection}):
 * a peer's bytes, cut into reads the fuzzer chooses, reach the handler as whole frames no longer than
 * the max-frame-size, or end the connection with a {@link FramingException}, the framing's one documented
 * refusal, and nothing else. Lines and fixed-length frames are also checked against the input itself:
 * the frames are its lines, or its slices, in order. In the build it runs over its committed corpus;
 * {@code benchmarks/fuzz.sh} fuzzes it.
 */
class FramingFuzzTest {

    private static final byte[] DELIMITER = "||".getBytes(StandardCharsets.US_ASCII);

    @FuzzTest(maxDuration = "2m")
    void framesArriveWholeOrTheConnectionEndsWithAFramingException(FuzzedDataProvider data) {
        int kind = data.consumeInt(0, 4);
        int maxFrameSize = data.consumeInt(1, 2048);
        int fixedLength = data.consumeInt(1, 64);
        int fieldOffset = data.consumeInt(0, 4);
        int fieldLength = new int[] { 1, 2, 3, 4, 8 }[data.consumeInt(0, 4)];
        ByteOrder order = data.consumeBoolean() ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        int adjustment = data.consumeInt(-16, 16);
        int strip = data.consumeInt(0, 12);
        long cuts = data.consumeLong();
        byte[] input = data.consumeRemainingAsBytes();
        Framing framing;
        try {
            framing = switch (kind) {
                case 0 -> Framing.line();
                case 1 -> Framing.delimiter(DELIMITER);
                case 2 -> Framing.lengthField(fieldOffset, fieldLength, order, adjustment, strip);
                case 3 -> Framing.fixed(fixedLength);
                default -> Framing.octetCounting();
            };
            framing = framing.withMaxFrameSize(Math.max(maxFrameSize, (kind == 3) ? fixedLength : 1));
        }
        catch (IllegalArgumentException ex) {
            // Settings a listener refuses at start-up: no peer's bytes reach them.
            return;
        }
        int limit = framing.maxFrameSize();
        FrameRecorder handler = new FrameRecorder();
        ListenerSettings settings = ListenerSettings.tcp("fuzz").address(InetAddress.getLoopbackAddress()).portNumber(7000)
                .framing(framing).handler(handler).build();
        try (EmbeddedConnection connection = EmbeddedConnection.open(settings)) {
            CutReads.writeInReads(connection, input, cuts, 300);
            for (Throwable error : connection.errors()) {
                assertThat(error).as("what ended the connection").isInstanceOf(FramingException.class);
                assertThat(error.getMessage()).startsWith("Listener 'fuzz': ");
            }
            if (!connection.errors().isEmpty()) {
                assertThat(connection.isOpen()).as("open after a refused frame").isFalse();
            }
        }
        long total = 0;
        for (byte[] frame : handler.frames()) {
            assertThat(frame.length).as("a frame's length, with max-frame-size %d", limit).isLessThanOrEqualTo(limit);
            total += frame.length;
        }
        assertThat(total).as("bytes of all frames").isLessThanOrEqualTo(input.length);
        boolean refused = handler.errors() > 0;
        if (kind == 0) {
            List<byte[]> lines = lines(input);
            assertFramesAre(handler.frames(), lines, refused);
        }
        else if (kind == 3) {
            List<byte[]> slices = new ArrayList<>();
            for (int i = 0; i + fixedLength <= input.length; i += fixedLength) {
                slices.add(Arrays.copyOfRange(input, i, i + fixedLength));
            }
            assertFramesAre(handler.frames(), slices, refused);
        }
    }

    @Test
    void aLongLineInSmallReadsCostsInProportionToItsBytes() {
        LinearCost.assertLinear("a line in 64-byte reads", Framing.line().withMaxFrameSize(MOST), 64, SIZE,
                (size) -> filled(size, "\n".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void aLongDelimitedFrameInSmallReadsCostsInProportionToItsBytes() {
        LinearCost.assertLinear("a delimited frame in 64-byte reads", Framing.delimiter(DELIMITER).withMaxFrameSize(MOST), 64, SIZE,
                (size) -> filled(size, DELIMITER));
    }

    @Test
    void aLongLengthFieldFrameInSmallReadsCostsInProportionToItsBytes() {
        LinearCost.assertLinear("a length-field frame in 64-byte reads", Framing.lengthField(0, 4, ByteOrder.BIG_ENDIAN, 0, 4)
                .withMaxFrameSize(MOST), 64, SIZE, (size) -> {
                    ByteBuffer frame = ByteBuffer.allocate(4 + size).putInt(size);
                    return frame.array();
                });
    }

    @Test
    void aLongOctetCountedFrameInSmallReadsCostsInProportionToItsBytes() {
        LinearCost.assertLinear("an octet-counted frame in 64-byte reads", Framing.octetCounting().withMaxFrameSize(MOST), 64, SIZE,
                (size) -> {
                    byte[] header = (size + " ").getBytes(StandardCharsets.US_ASCII);
                    byte[] frame = new byte[header.length + size];
                    System.arraycopy(header, 0, frame, 0, header.length);
                    return frame;
                });
    }

    /** Frames of the cost checks: 64 KiB, then eight times that. */
    private static final int SIZE = 64 * 1024;

    private static final int MOST = 1 << 20;

    /** @return {@code size} bytes of 'x' and the terminator */
    private static byte[] filled(int size, byte[] terminator) {
        byte[] frame = new byte[size + terminator.length];
        Arrays.fill(frame, 0, size, (byte) 'x');
        System.arraycopy(terminator, 0, frame, size, terminator.length);
        return frame;
    }

    /** The frames are the expected ones, all of them, or the first of them when the connection refused one. */
    private static void assertFramesAre(List<byte[]> frames, List<byte[]> expected, boolean refused) {
        if (!refused) {
            assertThat(frames).hasSameSizeAs(expected);
        }
        assertThat(frames.size()).isLessThanOrEqualTo(expected.size());
        for (int i = 0; i < frames.size(); i++) {
            assertThat(frames.get(i)).as("frame %d", i).isEqualTo(expected.get(i));
        }
    }

    /** @return the input's whole lines, each without its LF and a CR before it */
    private static List<byte[]> lines(byte[] input) {
        List<byte[]> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < input.length; i++) {
            if (input[i] == '\n') {
                int end = (i > start && input[i - 1] == '\r') ? i - 1 : i;
                lines.add(Arrays.copyOfRange(input, start, end));
                start = i + 1;
            }
        }
        return lines;
    }
}
