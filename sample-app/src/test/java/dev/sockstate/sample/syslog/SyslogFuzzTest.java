package dev.sockstate.sample.syslog;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.engine.CutReads;
import dev.sockstate.server.engine.EmbeddedConnection;
import dev.sockstate.server.engine.LinearCost;
import dev.sockstate.server.framing.FrameEncoder;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.framing.FramingException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The sample's syslog receiver, fuzzed (Jazzer): its framing (RFC 6587's octet counting or LF, told
 * apart by a frame's first byte) through a whole connection in memory, however the bytes are cut into
 * reads, and its message reader on every frame and on the whole input as one datagram. A frame reaches
 * the handler no longer than the max-frame-size, or the connection ends with a
 * {@link FramingException}; a message is read, or refused with an {@link IllegalArgumentException}
 * naming why; nothing else is thrown. Long frames arriving in small reads cost in proportion to their
 * bytes. In the build it runs over its committed corpus; {@code benchmarks/fuzz.sh} fuzzes it.
 */
class SyslogFuzzTest {

    /** The sample's {@code syslog} listener's max-frame-size. */
    private static final int MAX_FRAME = 64 * 1024;

    @FuzzTest(maxDuration = "2m")
    void framesAndMessagesAreReadOrRefusedWhateverTheBytes(FuzzedDataProvider data) {
        long cuts = data.consumeLong();
        byte[] input = data.consumeRemainingAsBytes();
        readOrRefuse(input);
        int[] frames = new int[1];
        ConnectionHandler handler = new ConnectionHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer frame) {
                assertThat(frame.remaining()).as("a frame's length").isLessThanOrEqualTo(MAX_FRAME);
                byte[] message = new byte[frame.remaining()];
                frame.get(message);
                readOrRefuse(message);
                frames[0]++;
            }
        };
        ListenerSettings settings = ListenerSettings.tcp("syslog").address(InetAddress.getLoopbackAddress()).portNumber(5140)
                .framing(framing(MAX_FRAME)).handler(handler).build();
        try (EmbeddedConnection connection = EmbeddedConnection.open(settings)) {
            CutReads.writeInReads(connection, input, cuts, 200);
            for (Throwable error : connection.errors()) {
                assertThat(error).as("what ended the connection").isInstanceOf(FramingException.class);
            }
        }
        assertThat(frames[0]).as("frames of %d bytes", input.length).isLessThanOrEqualTo(input.length);
    }

    @Test
    void aLongOctetCountedMessageInSmallReadsCostsInProportionToItsBytes() {
        LinearCost.assertLinear("an octet-counted message in 64-byte reads", framing(1 << 20), 64, 64 * 1024, (size) -> {
            String message = "<13>1 - host app - - - " + "x".repeat(size);
            return (message.length() + " " + message).getBytes(StandardCharsets.US_ASCII);
        });
    }

    @Test
    void aLongLineMessageInSmallReadsCostsInProportionToItsBytes() {
        LinearCost.assertLinear("a message ended by LF in 64-byte reads", framing(1 << 20), 64, 64 * 1024,
                (size) -> ("<13>Nov 23 10:00:00 host app: " + "x".repeat(size) + "\n").getBytes(StandardCharsets.US_ASCII));
    }

    private static Framing framing(int maxFrameSize) {
        return Framing.of(new SyslogFraming(), FrameEncoder.AS_IS).withMaxFrameSize(maxFrameSize);
    }

    /** A message is read, or refused naming why. */
    private static void readOrRefuse(byte[] message) {
        try {
            SyslogMessage read = SyslogMessage.parse(message);
            assertThat(read.facility()).isNotNull();
            assertThat(read.severity()).isNotNull();
            assertThat(read.text()).isNotNull();
        }
        catch (IllegalArgumentException ex) {
            assertThat(ex.getMessage()).as("what a refusal names").startsWith("a syslog ");
        }
    }
}
