package dev.sockstate.sample.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.server.framing.FrameDecoder;
import dev.sockstate.server.framing.FramingException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The RESP framing and the commands: requests are cut where Redis cuts them, whatever prefix of a
 * pipeline has arrived, and each whole request gets the reply Redis gives.
 */
class RespCodecTest {

    private final RespCodec codec = new RespCodec();

    private final KeyValueStore store = new KeyValueStore(10, 1 << 20);

    private final RespCommands commands = new RespCommands(this.store);

    /**
     * A request arriving a byte at a time, as the framing asks the codec about it: the codec resumes
     * where it left off (a multibulk request after the arguments found whole, saved in the
     * connection's progress; an inline one after the bytes searched), and tells the length exactly
     * when the request is whole, as a fresh parse of the same bytes does at every step.
     */
    @Test
    void aRequestArrivingAByteAtATimeIsCutWhereAFreshParseCutsIt() throws Exception {
        StringBuilder multibulk = new StringBuilder("*40\r\n");
        for (int i = 0; i < 40; i++) {
            multibulk.append("$").append(String.valueOf(i).length() + 3).append("\r\narg").append(i).append("\r\n");
        }
        for (String request : List.of(multibulk.toString(), "SET key \"a value\"\r\n", "*0\r\n")) {
            byte[] bytes = (request + "PING\r\n").getBytes(StandardCharsets.UTF_8);
            long[] saved = {0};
            FrameDecoder.Progress progress = new FrameDecoder.Progress() {
                @Override
                public long saved() {
                    return saved[0];
                }

                @Override
                public void save(long state) {
                    saved[0] = state;
                }
            };
            int searched = 0;
            for (int arrived = 1; arrived <= request.length(); arrived++) {
                ByteBuffer prefix = ByteBuffer.wrap(bytes, 0, arrived).slice();
                long resumed = this.codec.frameLength(prefix, searched, progress);
                long fresh = this.codec.frameLength(ByteBuffer.wrap(bytes, 0, arrived).slice());
                assertThat(fresh).as("after %d bytes of %s", arrived, request)
                        .isEqualTo((arrived < request.length()) ? FrameDecoder.MORE : request.length());
                if (resumed != fresh) {
                    // Inside a bulk argument whose header came: the length the request reaches, which it does.
                    assertThat(FrameDecoder.leastLength(resumed)).as("after %d bytes of %s", arrived, request)
                            .isGreaterThan(arrived).isLessThanOrEqualTo(request.length());
                }
                searched = (resumed == FrameDecoder.MORE) ? arrived : 0;
            }
        }
    }

    /**
     * Once a bulk argument's header came and its body did not, the codec announces the length the
     * request reaches, so that the framing does not ask again at each read of a long value, and a
     * request over the listener's max-frame-size is refused as its header comes.
     */
    @Test
    void aBulkArgumentWhoseHeaderCameAnnouncesTheLengthTheRequestReaches() throws Exception {
        String request = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\nvalue...";
        long answer = this.codec.frameLength(ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII)), 0, new FrameDecoder.Progress() {
            @Override
            public long saved() {
                return 0;
            }

            @Override
            public void save(long state) {
            }
        });
        int header = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\n".length();
        assertThat(FrameDecoder.leastLength(answer)).isEqualTo(header + 100_000 + 2);
    }

    /** Cuts the text into requests as the listener's framing does, and returns their replies. */
    private String run(String requests) throws FramingException {
        ByteBuffer bytes = ByteBuffer.wrap(requests.getBytes(StandardCharsets.UTF_8));
        RespReply reply = new RespReply();
        while (bytes.hasRemaining()) {
            long length = this.codec.frameLength(bytes);
            assertThat(length).as("a whole request at %d", bytes.position()).isPositive();
            ByteBuffer request = bytes.duplicate().limit(bytes.position() + (int) length);
            var arguments = RespCodec.arguments(request);
            if (!arguments.isEmpty()) {
                this.commands.execute(arguments, reply);
            }
            bytes.position(bytes.position() + (int) length);
        }
        return reply.toString();
    }

    private static String command(String... arguments) {
        StringBuilder text = new StringBuilder("*").append(arguments.length).append("\r\n");
        for (String argument : arguments) {
            text.append('$').append(argument.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(argument).append("\r\n");
        }
        return text.toString();
    }

    @Test
    void pingAnswersPongOrItsArgument() throws Exception {
        assertThat(run(command("PING"))).isEqualTo("+PONG\r\n");
        assertThat(run(command("ping", "hi"))).isEqualTo("$2\r\nhi\r\n");
        assertThat(run(command("PING", "a", "b"))).isEqualTo("-ERR wrong number of arguments for 'ping' command\r\n");
    }

    @Test
    void echoReturnsItsArgument() throws Exception {
        assertThat(run(command("ECHO", "h\u00e9llo"))).isEqualTo("$6\r\nh\u00e9llo\r\n");
        assertThat(run(command("ECHO"))).startsWith("-ERR wrong number of arguments");
    }

    @Test
    void setGetDelAndExistsWorkOnKeys() throws Exception {
        assertThat(run(command("GET", "k"))).isEqualTo("$-1\r\n");
        assertThat(run(command("SET", "k", "v"))).isEqualTo("+OK\r\n");
        assertThat(run(command("GET", "k"))).isEqualTo("$1\r\nv\r\n");
        assertThat(run(command("EXISTS", "k", "nope", "k"))).isEqualTo(":2\r\n");
        assertThat(run(command("DEL", "k", "nope"))).isEqualTo(":1\r\n");
        assertThat(run(command("EXISTS", "k"))).isEqualTo(":0\r\n");
        assertThat(run(command("SET", "k"))).startsWith("-ERR wrong number of arguments");
        assertThat(run(command("SET", "k", "v", "EX"))).isEqualTo("-ERR syntax error\r\n");
        assertThat(run(command("GET"))).startsWith("-ERR wrong number of arguments");
        assertThat(run(command("DEL"))).startsWith("-ERR wrong number of arguments");
    }

    @Test
    void incrCountsAndRefusesWhatIsNotAnInteger() throws Exception {
        assertThat(run(command("INCR", "n"))).isEqualTo(":1\r\n");
        assertThat(run(command("INCR", "n"))).isEqualTo(":2\r\n");
        assertThat(run(command("GET", "n"))).isEqualTo("$1\r\n2\r\n");
        run(command("SET", "t", "text"));
        assertThat(run(command("INCR", "t"))).isEqualTo("-ERR value is not an integer or out of range\r\n");
        run(command("SET", "max", Long.toString(Long.MAX_VALUE)));
        assertThat(run(command("INCR", "max"))).isEqualTo("-ERR value is not an integer or out of range\r\n");
    }

    @Test
    void unknownCommandsAndAFullStoreGetErrors() throws Exception {
        assertThat(run(command("FLUSHALL"))).isEqualTo("-ERR unknown command 'FLUSHALL', with args beginning with: \r\n");
        for (int i = 0; i < 10; i++) {
            run(command("SET", "key" + i, "v"));
        }
        assertThat(run(command("SET", "one-more", "v"))).startsWith("-OOM");
        assertThat(run(command("SET", "key1", "replaced"))).isEqualTo("+OK\r\n");
    }

    @Test
    void clientsHandshakeCommandsAreAnsweredAndQuitCloses() throws Exception {
        assertThat(run(command("CONFIG", "GET", "save"))).isEqualTo("*0\r\n");
        assertThat(run(command("COMMAND", "DOCS"))).isEqualTo("*0\r\n");
        RespReply reply = new RespReply();
        boolean open = this.commands.execute(RespCodec.arguments(ByteBuffer.wrap(command("QUIT").getBytes(StandardCharsets.UTF_8))),
                reply);
        assertThat(reply.toString()).isEqualTo("+OK\r\n");
        assertThat(open).isFalse();
    }

    @Test
    void inlineAndEmptyRequestsAreCut() throws Exception {
        assertThat(run("PING\r\n")).isEqualTo("+PONG\r\n");
        assertThat(run("SET  spaced   value\nGET spaced\r\n")).isEqualTo("+OK\r\n$5\r\nvalue\r\n");
        assertThat(run("\r\n")).isEmpty();
        assertThat(run("*0\r\n")).isEmpty();
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        String pipeline = command("SET", "a", "1") + command("INCR", "a") + "GET a\r\n" + command("PING") + command("DEL", "a");
        assertThat(run(pipeline)).isEqualTo("+OK\r\n:2\r\n$1\r\n2\r\n+PONG\r\n:1\r\n");
    }

    @Test
    void everyPrefixOfAPipelineIsEitherUnfinishedOrHoldsTheSameFirstRequest() throws Exception {
        String pipeline = command("SET", "key", "a value with spaces") + command("GET", "key") + "ECHO inline\r\n";
        ByteBuffer whole = ByteBuffer.wrap(pipeline.getBytes(StandardCharsets.UTF_8));
        long first = this.codec.frameLength(whole);
        assertThat(first).isEqualTo(command("SET", "key", "a value with spaces").length());
        for (int prefix = 1; prefix < pipeline.length(); prefix++) {
            long length = this.codec.frameLength(whole.duplicate().limit(prefix));
            assertThat(length).as("prefix of %d bytes", prefix).isEqualTo((prefix < first) ? FrameDecoder.MORE : first);
        }
    }

    @Test
    void malformedRequestsAreRefusedAsRedisRefusesThem() {
        assertRefused("*x\r\n", "invalid multibulk length");
        assertRefused("*2000\r\n", "invalid multibulk length");
        assertRefused("*1\r\n+PING\r\n", "expected '$', got '+'");
        assertRefused("*1\r\n$-5\r\n", "invalid bulk length");
        assertRefused("*1\r\n$abc\r\n", "invalid bulk length");
        assertRefused("*1\r\n$4\r\nPINGxx", "bulk string not terminated by CRLF");
        assertRefused("*1\r\n$99999999999999999999\r\n", "invalid bulk length");
        assertRefused("*1" + "1".repeat(40), "header line too long");
    }

    @Test
    void oversizedRequestsAreRefusedBeforeTheyAreBuffered() {
        assertRefused("*1\r\n$" + (RespCodec.MAX_BULK + 1) + "\r\n", "invalid bulk length");
        assertRefused("x".repeat(RespCodec.MAX_INLINE + 10), "too big inline request");
    }

    private void assertRefused(String input, String message) {
        assertThatExceptionOfType(FramingException.class).as(input.length() > 40 ? input.substring(0, 40) : input)
                .isThrownBy(() -> this.codec.frameLength(ByteBuffer.wrap(input.getBytes(StandardCharsets.UTF_8)))).withMessage(message);
    }
}
