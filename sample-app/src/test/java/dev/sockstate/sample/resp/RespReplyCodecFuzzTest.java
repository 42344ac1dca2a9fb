package dev.sockstate.sample.resp;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.engine.CutReads;
import dev.sockstate.server.engine.EmbeddedConnection;
import dev.sockstate.server.engine.FrameRecorder;
import dev.sockstate.server.engine.LinearCost;
import dev.sockstate.server.framing.FrameDecoder;
import dev.sockstate.server.framing.FrameEncoder;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.framing.FramingException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The sample's RESP reply codec (the framing of the {@code redis} client's replies), fuzzed (Jazzer)
 * through a whole connection in memory: however a server's bytes are cut into reads, the handler gets
 * the replies one parse of all the bytes at once finds, in order (the codec resumes an unfinished
 * reply where the call before left off, one parse starts each reply afresh), and a reply the codec
 * refuses ends the connection with a {@link FramingException} and nothing else. Large replies arriving in small
 * reads cost in proportion to their bytes. In the build it runs over its committed corpus;
 * {@code benchmarks/fuzz.sh} fuzzes it.
 */
class RespReplyCodecFuzzTest {

    private static final int MAX_FRAME = 64 * 1024;

    @FuzzTest(maxDuration = "2m")
    void repliesArriveAsOneParseFindsThemHoweverTheBytesAreCut(FuzzedDataProvider data) {
        long cuts = data.consumeLong();
        byte[] input = data.consumeRemainingAsBytes();
        List<byte[]> expected = new ArrayList<>();
        boolean refusedWhole = false;
        ByteBuffer whole = ByteBuffer.wrap(input);
        try {
            while (whole.hasRemaining()) {
                long answer = new RespReplyCodec().frameLength(whole);
                if (answer > MAX_FRAME || FrameDecoder.leastLength(answer) > MAX_FRAME) {
                    // Longer than a frame may be: refused as soon as that is known.
                    refusedWhole = true;
                    break;
                }
                if (answer < 0 || answer > whole.remaining()) {
                    break;
                }
                byte[] reply = new byte[(int) answer];
                whole.get(reply);
                expected.add(reply);
            }
        }
        catch (FramingException ex) {
            refusedWhole = true;
        }
        FrameRecorder handler = new FrameRecorder();
        boolean refused;
        List<Throwable> errors;
        try (EmbeddedConnection connection = EmbeddedConnection.open(settings(handler))) {
            CutReads.writeInReads(connection, input, cuts, 200);
            for (Throwable error : connection.errors()) {
                assertThat(error).as("what ended the connection").isInstanceOf(FramingException.class);
            }
            errors = connection.errors();
            refused = !errors.isEmpty();
        }
        // Refused in reads only where one parse refuses too. (One parse may refuse where the reads do not:
        // past a least length announced, the framing asks again only once that many bytes arrived, so the
        // bytes that refuse the reply may never be looked at.)
        if (refused) {
            assertThat(refusedWhole).as("refused in reads as the seed %d cuts them (%s), so in one parse", cuts, errors).isTrue();
        }
        assertThat(handler.frames()).as("replies, cut into reads as the seed %d cuts them", cuts).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(handler.frames().get(i)).as("reply %d", i).isEqualTo(expected.get(i));
        }
    }

    @Test
    void aLongLineWithinAnArrayInSmallReadsCostsInProportionToItsBytes() {
        LinearCost.assertLinear("an error line within an array in 64-byte reads", framing(), 64, 64 * 1024,
                (size) -> ("*2\r\n-" + "x".repeat(size) + "\r\n:1\r\n").getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void aLongArrayOfSmallElementsInSmallReadsCostsInProportionToItsBytes() {
        LinearCost.assertLinear("an array of integers in 64-byte reads", framing(), 64, 64 * 1024, (size) -> {
            StringBuilder reply = new StringBuilder("*").append(size / 4).append("\r\n");
            for (int i = 0; i < size / 4; i++) {
                reply.append(":1\r\n");
            }
            return reply.toString().getBytes(StandardCharsets.US_ASCII);
        });
    }

    @Test
    void aLongArrayOfLongStatusLinesInSmallReadsCostsInProportionToItsBytes() {
        String line = "+" + "x".repeat(1000) + "\r\n";
        LinearCost.assertLinear("an array of 1 KB lines in 64-byte reads", framing(), 64, 64 * 1024, (size) -> {
            int count = size / line.length();
            return ("*" + count + "\r\n" + line.repeat(count)).getBytes(StandardCharsets.US_ASCII);
        });
    }

    @Test
    void aLongStatusLineInSmallReadsCostsInProportionToItsBytes() {
        LinearCost.assertLinear("a status line in 64-byte reads", framing(), 64, 64 * 1024,
                (size) -> ("+" + "x".repeat(size) + "\r\n").getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void aNestedArrayInSmallReadsCostsInProportionToItsBytes() {
        LinearCost.assertLinear("an array within an array in 64-byte reads", framing(), 64, 64 * 1024, (size) -> {
            StringBuilder reply = new StringBuilder("*1\r\n*").append(size / 8).append("\r\n");
            for (int i = 0; i < size / 8; i++) {
                reply.append("$2\r\nab\r\n");
            }
            return reply.toString().getBytes(StandardCharsets.US_ASCII);
        });
    }

    private static Framing framing() {
        return Framing.of(new RespReplyCodec(), FrameEncoder.AS_IS).withMaxFrameSize(1 << 20);
    }

    private static ListenerSettings settings(ConnectionHandler handler) {
        return ListenerSettings.tcp("replies").address(InetAddress.getLoopbackAddress()).portNumber(6379)
                .framing(Framing.of(new RespReplyCodec(), FrameEncoder.AS_IS).withMaxFrameSize(MAX_FRAME)).handler(handler).build();
    }
}
