package dev.sockstate.sample.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.server.framing.FrameDecoder;
import dev.sockstate.server.framing.FramingException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The framing of the redis client's replies: one whole RESP2 reply a frame, whatever its type. */
class RespReplyCodecTest {

    private final RespReplyCodec codec = new RespReplyCodec();

    @Test
    void eachTypeOfReplyIsOneFrame() throws Exception {
        assertThat(length("+OK\r\n")).isEqualTo(5);
        assertThat(length("-ERR unknown command\r\n")).isEqualTo(22);
        assertThat(length(":42\r\n")).isEqualTo(5);
        assertThat(length("$5\r\nhello\r\n")).isEqualTo(11);
        assertThat(length("$-1\r\n")).isEqualTo(5);
        assertThat(length("*-1\r\n")).isEqualTo(5);
        assertThat(length("*2\r\n$1\r\na\r\n*2\r\n:1\r\n+x\r\n")).isEqualTo(23);
    }

    @Test
    void aReplyNotWholeYetAsksForMore() throws Exception {
        assertThat(length("+OK\r")).isEqualTo(FrameDecoder.MORE);
    }

    @Test
    void aBulkReplyNotEndedByCrlfIsRefusedOnceItsBytesArrived() {
        assertThatExceptionOfType(FramingException.class).isThrownBy(() -> length("$1\r\nx\0\0"))
                .withMessageContaining("not ended by CRLF");
    }

    @Test
    void anArrayNotWholeYetAnnouncesTheLeastLengthItsElementsStillToComeTake() throws Exception {
        assertThat(FrameDecoder.leastLength(length("*1\r\n$5\r\nhel"))).as("up to the bulk element's end").isEqualTo(15);
        assertThat(FrameDecoder.leastLength(length("*2\r\n$1\r\na\r\n"))).as("and 3 bytes for the element not begun").isEqualTo(14);
        assertThat(FrameDecoder.leastLength(length("*1000\r\n:1\r\n"))).as("999 elements of 3 bytes at least")
                .isEqualTo(7 + 4 + 999 * 3);
    }

    @Test
    void onlyTheFirstReplyIsTheFrameWhenTwoArrivedTogether() throws Exception {
        assertThat(length("+OK\r\n:1\r\n")).isEqualTo(5);
    }

    @Test
    void bytesThatAreNoReplyFailTheFrame() {
        assertThatExceptionOfType(FramingException.class).isThrownBy(() -> length("hello\r\n"))
                .withMessageContaining("not RESP");
        assertThatExceptionOfType(FramingException.class).isThrownBy(() -> length("$5\r\nhelloXX"))
                .withMessageContaining("not ended by CRLF");
        assertThatExceptionOfType(FramingException.class).isThrownBy(() -> length("$x\r\n"))
                .withMessageContaining("bad length");
        assertThatExceptionOfType(FramingException.class).isThrownBy(() -> length("$\r\n"))
                .withMessageContaining("empty length");
        assertThatExceptionOfType(FramingException.class).isThrownBy(() -> length("$" + "9".repeat(40)))
                .withMessageContaining("length line too long");
    }

    @Test
    void aFirstByteThatIsNoTypeIsRefusedBeforeItsLineEnds() {
        assertThatExceptionOfType(FramingException.class).isThrownBy(() -> length("hel")).withMessageContaining("not RESP");
    }

    @Test
    void aBulkReplysLengthIsAnnouncedFromItsLengthLineSoThatOneTooLargeIsRefusedAtOnce() throws Exception {
        assertThat(FrameDecoder.leastLength(length("$5\r\nhel"))).isEqualTo(11);
        assertThat(FrameDecoder.leastLength(length("$100000000\r\n"))).isEqualTo(100_000_014L);
        assertThat(length("$5\r\nhello\r\n")).as("asked again once it arrived: its length, its CRLF checked").isEqualTo(11);
    }

    @Test
    void aLengthOverAnyIntIsRefused() {
        assertThatExceptionOfType(FramingException.class).isThrownBy(() -> length("$9999999999\r\nabc"))
                .withMessageContaining("bad length");
        assertThatExceptionOfType(FramingException.class).isThrownBy(() -> length("*9999999999\r\n"))
                .withMessageContaining("bad length");
    }

    private long length(String reply) throws FramingException {
        return this.codec.frameLength(ByteBuffer.wrap(reply.getBytes(StandardCharsets.US_ASCII)));
    }
}
