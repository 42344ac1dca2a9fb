package dev.sockstate.sample.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sockstate.server.framing.FramingException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The proxy tells the commands it passes on from the others by their bytes, in any case, and reads an
 * inline request as Redis reads it.
 */
class RespProxyHandlerTest {

    @Test
    void theCommandsPassedOnAreFoundInAnyCaseAndNoOtherIs() {
        assertThat(served("*2\r\n$3\r\nget\r\n$1\r\nk\r\n")).isTrue();
        assertThat(served("*2\r\n$4\r\nEcho\r\n$1\r\nx\r\n")).isTrue();
        assertThat(served("ECHO x\r\n")).isTrue();
        assertThat(served("PING\r\n")).as("answered by the proxy").isFalse();
        assertThat(served("*1\r\n$4\r\nquit\r\n")).isFalse();
        assertThat(served("*1\r\n$5\r\nMulti\r\n")).isFalse();
        assertThat(served("*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\nc\r\n")).isFalse();
        assertThat(served("select 1\r\n")).isFalse();
        assertThat(served("*2\r\n$4\r\nKEYS\r\n$1\r\n*\r\n")).isFalse();
        assertThat(served("*1\r\n$4\r\nGETS\r\n")).isFalse();
        assertThat(served("*1\r\n$2\r\nGE\r\n")).isFalse();
        assertThat(served("*1\r\n$26\r\nABCDEFGHIJKLMNOPQRSTUVWXYZ\r\n")).isFalse();
    }

    @Test
    void anInlineRequestIsSplitAsRedisSplitsIt() throws Exception {
        assertThat(split("\"MULTI\"\r\n")).containsExactly("MULTI");
        assertThat(split("\u000bSELECT 9\r\n")).containsExactly("SELECT", "9");
        assertThat(split("\"CLIENT\" LIST\r\n")).containsExactly("CLIENT", "LIST");
        assertThat(split("MON\"ITOR\"\r\n")).containsExactly("MONITOR");
        assertThat(split("set 'a key' \"a\\tvalue\\x41\"\r\n")).containsExactly("set", "a key", "a\tvalueA");
        assertThat(split("get k\u0000 flushall\r\n")).containsExactly("get", "k");
        assertThatThrownBy(() -> split("set \"unbalanced\r\n")).isInstanceOf(FramingException.class).hasMessage("unbalanced quotes in request");
        assertThatThrownBy(() -> split("set \"a\"b\r\n")).isInstanceOf(FramingException.class);
    }

    @Test
    void onlyALineThatBothReadAlikeIsPlain() {
        assertThat(RespCodec.plainInline(bytes("GET some:key\r\n"))).isTrue();
        assertThat(RespCodec.plainInline(bytes("\"MULTI\"\r\n"))).isFalse();
        assertThat(RespCodec.plainInline(bytes("\u000bSELECT 9\r\n"))).isFalse();
        assertThat(RespCodec.plainInline(bytes("GET k\rX\r\n"))).isFalse();
    }

    @Test
    void aLengthWithALeadingZeroIsRefusedAsRedisRefusesIt() {
        assertThatThrownBy(() -> new RespCodec().frameLength(bytes("*1\r\n$04\r\nPING\r\n"))).isInstanceOf(FramingException.class)
                .hasMessage("invalid bulk length");
        assertThatThrownBy(() -> new RespCodec().frameLength(bytes("*01\r\n$4\r\nPING\r\n"))).isInstanceOf(FramingException.class);
    }

    private static List<String> split(String request) throws FramingException {
        return RespCodec.arguments(bytes(request)).stream().map((argument) -> new String(argument, StandardCharsets.ISO_8859_1)).toList();
    }

    private static ByteBuffer bytes(String request) {
        return ByteBuffer.wrap(request.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static boolean served(String request) {
        ByteBuffer bytes = bytes(request);
        long bounds = RespCodec.commandBounds(bytes);
        return RespProxyHandler.served(bytes, (int) (bounds >>> 32), (int) bounds);
    }
}
