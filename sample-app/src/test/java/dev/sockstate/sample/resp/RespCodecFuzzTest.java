package dev.sockstate.sample.resp;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.engine.CutReads;
import dev.sockstate.server.engine.EmbeddedConnection;
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
 * The sample's RESP request codec, fuzzed (Jazzer) through a whole connection in memory: however a
 * client's bytes are cut into reads, the handler gets the requests one parse of all the bytes at once
 * finds, in order, each multibulk one of which splits into arguments; a request the codec refuses ends the
 * connection with a {@link FramingException} and nothing else. Long requests arriving in small reads
 * cost in proportion to their bytes. In the build it runs over its
 * committed corpus; {@code benchmarks/fuzz.sh} fuzzes it.
 */
class RespCodecFuzzTest {

    @FuzzTest(maxDuration = "2m")
    void requestsArriveAsOneParseFindsThemHoweverTheBytesAreCut(FuzzedDataProvider data) throws Exception {
        long cuts = data.consumeLong();
        byte[] input = data.consumeRemainingAsBytes();
        List<byte[]> expected = new ArrayList<>();
        boolean refusedWhole = false;
        ByteBuffer whole = ByteBuffer.wrap(input);
        try {
            while (whole.hasRemaining()) {
                long length = new RespCodec().frameLength(whole);
                if (length < 0) {
                    break;
                }
                byte[] request = new byte[(int) length];
                whole.get(request);
                expected.add(request);
            }
        }
        catch (FramingException ex) {
            refusedWhole = true;
        }
        List<byte[]> requests = new ArrayList<>();
        ConnectionHandler handler = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer request) {
                byte[] copy = new byte[request.remaining()];
                request.duplicate().get(copy);
                requests.add(copy);
                try {
                    RespCodec.arguments(request);
                }
                catch (FramingException ex) {
                    // An inline line Redis refuses as it splits it is the handler's to answer; a multibulk request always splits.
                    if (copy.length > 0 && copy[0] == '*') {
                        throw new AssertionError("a multibulk request the codec framed does not split into arguments", ex);
                    }
                }
            }
        };
        Framing framing = Framing.of(new RespCodec(), FrameEncoder.AS_IS).withMaxFrameSize(RespCodec.MAX_REQUEST);
        ListenerSettings settings = ListenerSettings.tcp("resp").address(InetAddress.getLoopbackAddress()).portNumber(6380)
                .framing(framing).handler(handler).build();
        try (EmbeddedConnection connection = EmbeddedConnection.open(settings)) {
            CutReads.writeInReads(connection, input, cuts, 200);
            for (Throwable error : connection.errors()) {
                assertThat(error).as("what ended the connection").isInstanceOf(FramingException.class);
            }
            assertThat(!connection.errors().isEmpty()).as("refused in reads as in one parse").isEqualTo(refusedWhole);
        }
        assertThat(requests).as("requests, cut into reads as the seed %d cuts them", cuts).hasSameSizeAs(expected);
        for (int i = 0; i < requests.size(); i++) {
            assertThat(requests.get(i)).as("request %d", i).isEqualTo(expected.get(i));
        }
        assertThat(FrameDecoder.MORE).isNegative();
    }

    @Test
    void aLongInlineRequestInSmallReadsCostsInProportionToItsBytes() {
        LinearCost.assertLinear("an inline request in 64-byte reads", framing(), 64, 7 * 1024,
                (size) -> ("SET k " + "x".repeat(size) + "\r\n").getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void aLongMultibulkRequestInSmallReadsCostsInProportionToItsBytes() {
        LinearCost.assertLinear("a request of 128 arguments in 64-byte reads", framing(), 64, 64 * 1024, (size) -> {
            String argument = "x".repeat(size / 128);
            StringBuilder request = new StringBuilder("*128\r\n");
            for (int i = 0; i < 128; i++) {
                request.append('$').append(argument.length()).append("\r\n").append(argument).append("\r\n");
            }
            return request.toString().getBytes(StandardCharsets.US_ASCII);
        });
    }

    private static Framing framing() {
        return Framing.of(new RespCodec(), FrameEncoder.AS_IS).withMaxFrameSize(RespCodec.MAX_REQUEST);
    }
}
