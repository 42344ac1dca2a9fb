package dev.sockstate.sample.resp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The proxy tells the commands it answers itself from those it forwards by their bytes, in any case. */
class RespProxyHandlerTest {

    @Test
    void theCommandsAnsweredHereAreFoundInAnyCaseAndNoOtherIs() {
        assertThat(answeredHere("*1\r\n$4\r\nquit\r\n")).isTrue();
        assertThat(answeredHere("*1\r\n$5\r\nMulti\r\n")).isTrue();
        assertThat(answeredHere("*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\nc\r\n")).isTrue();
        assertThat(answeredHere("select 1\r\n")).isTrue();
        assertThat(answeredHere("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n")).isFalse();
        assertThat(answeredHere("*1\r\n$5\r\nQUITS\r\n")).isFalse();
        assertThat(answeredHere("*1\r\n$4\r\nMULT\r\n")).isFalse();
        assertThat(answeredHere("PING\r\n")).isFalse();
        assertThat(answeredHere("*1\r\n$26\r\nABCDEFGHIJKLMNOPQRSTUVWXYZ\r\n")).isFalse();
    }

    private static boolean answeredHere(String request) {
        ByteBuffer bytes = ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII));
        long bounds = RespCodec.commandBounds(bytes);
        assertThat(RespCodec.commandName(bytes)).isEqualTo(request.replaceAll("^\\*\\d+\r\n\\$\\d+\r\n", "").split("[\r ]")[0].toUpperCase());
        return RespProxyHandler.answeredHere(bytes, (int) (bounds >>> 32), (int) bounds);
    }
}
