package dev.sockstate.sample.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RespParserTest {

    private final KeyValueStore store = new KeyValueStore(10);

    private final RespCommands commands = new RespCommands(this.store);

    /** Feeds the text in the given pieces and returns the replies of the requests it held. */
    private String run(RespParser parser, String... pieces) throws RespProtocolException {
        RespReply reply = new RespReply();
        for (String piece : pieces) {
            parser.feed(ByteBuffer.wrap(piece.getBytes(StandardCharsets.UTF_8)), (arguments) -> this.commands.execute(arguments, reply));
        }
        return reply.toString();
    }

    private String run(String request) throws RespProtocolException {
        return run(new RespParser(), request);
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
        assertThat(run(command("ECHO", "héllo"))).isEqualTo("$6\r\nhéllo\r\n");
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
    void clientsHandshakeCommandsAreAnswered() throws Exception {
        assertThat(run(command("CONFIG", "GET", "save"))).isEqualTo("*0\r\n");
        assertThat(run(command("COMMAND", "DOCS"))).isEqualTo("*0\r\n");
        List<Boolean> open = new ArrayList<>();
        RespReply reply = new RespReply();
        new RespParser().feed(ByteBuffer.wrap(command("QUIT").getBytes(StandardCharsets.UTF_8)), (arguments) -> {
            open.add(this.commands.execute(arguments, reply));
            return open.get(0);
        });
        assertThat(reply.toString()).isEqualTo("+OK\r\n");
        assertThat(open).containsExactly(false);
    }

    @Test
    void inlineCommandsAreParsed() throws Exception {
        assertThat(run("PING\r\n")).isEqualTo("+PONG\r\n");
        assertThat(run("SET  spaced   value\nGET spaced\r\n")).isEqualTo("+OK\r\n$5\r\nvalue\r\n");
        assertThat(run("\r\n")).isEmpty();
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        String pipeline = command("SET", "a", "1") + command("INCR", "a") + "GET a\r\n" + command("PING") + command("DEL", "a");
        assertThat(run(pipeline)).isEqualTo("+OK\r\n:2\r\n$1\r\n2\r\n+PONG\r\n:1\r\n");
    }

    @Test
    void requestsSplitAtEveryByteBoundaryGiveTheSameReplies() throws Exception {
        String pipeline = command("SET", "key", "a value with spaces") + command("GET", "key") + "ECHO inline\r\n"
                + command("INCR", "counter");
        String expected = "+OK\r\n$19\r\na value with spaces\r\n$6\r\ninline\r\n:";
        for (int split = 1; split < pipeline.length(); split++) {
            this.store.delete("counter".getBytes(StandardCharsets.UTF_8));
            RespParser parser = new RespParser();
            String replies = run(parser, pipeline.substring(0, split), pipeline.substring(split));
            assertThat(replies).as("split at %d", split).isEqualTo(expected + "1\r\n");
            assertThat(parser.hasPending()).isFalse();
        }
        RespParser parser = new RespParser();
        List<String> bytes = new ArrayList<>();
        for (char c : pipeline.toCharArray()) {
            bytes.add(String.valueOf(c));
        }
        this.store.delete("counter".getBytes(StandardCharsets.UTF_8));
        assertThat(run(parser, bytes.toArray(String[]::new))).as("one byte at a time").isEqualTo(expected + "1\r\n");
    }

    @Test
    void anUnfinishedRequestIsKeptOnlyUntilItIsComplete() throws Exception {
        RespParser parser = new RespParser();
        assertThat(run(parser, "*2\r\n$4\r\nECHO\r\n$5\r\nhel")).isEmpty();
        assertThat(parser.hasPending()).isTrue();
        assertThat(run(parser, "lo\r\n")).isEqualTo("$5\r\nhello\r\n");
        assertThat(parser.hasPending()).isFalse();
    }

    @Test
    void malformedRequestsAreProtocolErrors() {
        assertProtocolError("*x\r\n", "invalid multibulk length");
        assertProtocolError("*2000\r\n", "invalid multibulk length");
        assertProtocolError("*1\r\n+PING\r\n", "expected '$', got '+'");
        assertProtocolError("*1\r\n$-5\r\n", "invalid bulk length");
        assertProtocolError("*1\r\n$abc\r\n", "invalid bulk length");
        assertProtocolError("*1\r\n$4\r\nPINGxx", "bulk string not terminated by CRLF");
        assertProtocolError("*1\r\n$99999999999999999999\r\n", "invalid bulk length");
        assertProtocolError("*1" + "1".repeat(40), "header line too long");
    }

    @Test
    void oversizedRequestsAreRefusedBeforeTheyAreBuffered() {
        assertProtocolError("*1\r\n$" + (RespParser.MAX_BULK + 1) + "\r\n", "invalid bulk length");
        assertProtocolError("x".repeat(RespParser.MAX_INLINE + 10), "too big inline request");
        RespParser parser = new RespParser();
        assertThatExceptionOfType(RespProtocolException.class).isThrownBy(() -> {
            run(parser, "*1\r\n$" + RespParser.MAX_BULK + "\r\n");
            byte[] chunk = new byte[64 * 1024];
            for (int i = 0; i < 40; i++) {
                parser.feed(ByteBuffer.wrap(chunk), (arguments) -> true);
            }
        }).withMessage("request too large");
    }

    private void assertProtocolError(String input, String message) {
        assertThatExceptionOfType(RespProtocolException.class).as(input.length() > 40 ? input.substring(0, 40) : input)
                .isThrownBy(() -> run(input)).withMessage(message);
    }
}
