package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.framing.FrameDecoder;
import dev.sockstate.server.framing.FrameEncoder;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.framing.FramingException;
import dev.sockstate.server.framing.FramingException.Reason;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A header-plus-counted-body protocol, the worked example of a decoder of one's own: a store that
 * speaks a part of memcached's text protocol ({@code set <key> <bytes>\r\n<data>\r\n}, answered
 * {@code STORED}; {@code get <key>\r\n}, answered {@code VALUE <key> <bytes>\r\n<data>\r\nEND}). Its
 * decoder tells a set's whole length as soon as the header line arrived, searches for that line from
 * where it left off, and refuses a value over its limit with a {@link FramingException#skipping}
 * refusal: the handler answers {@code SERVER_ERROR object too large for cache}, the value's bytes are
 * discarded however they arrive, and the connection goes on, as memcached does. On loopback sockets.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SkippedFrameTest {

    /** The largest value the store takes. */
    private static final int MOST_VALUE = 1024;

    private final ServerFixture fixture = new ServerFixture();

    private final Store store = new Store();

    @AfterEach
    void stop() throws IOException {
        this.fixture.close();
    }

    private Socket start() throws IOException {
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("store")
                .framing(Framing.of(new StoreDecoder(), FrameEncoder.AS_IS)).handler(this.store).build());
        Socket client = this.fixture.connect(server, "store");
        client.setSoTimeout(10_000);
        return client;
    }

    @Test
    void aValueOverTheLimitIsAnsweredAndSkippedAndTheCommandsAroundItAreServed() throws Exception {
        Socket client = start();
        String large = "x".repeat(100 * 1024);
        write(client, "set a 5\r\nhello\r\nset b " + large.length() + "\r\n" + large + "\r\nget a\r\nget b\r\n");
        assertThat(read(client, "END\r\nEND\r\n")).isEqualTo("STORED\r\nSERVER_ERROR object too large for cache\r\n"
                + "VALUE a 5\r\nhello\r\nEND\r\nEND\r\n");
        assertThat(this.store.refusals).singleElement().satisfies((refusal) -> {
            assertThat(refusal.reason()).isEqualTo(Reason.TOO_LARGE);
            assertThat(refusal.skipLength()).isEqualTo(("set b " + large.length() + "\r\n").length() + large.length() + 2);
            assertThat(refusal.getMessage()).isEqualTo("Listener 'store': object too large for cache");
        });
        write(client, "get a\r\n");
        assertThat(read(client, "END\r\n")).as("the connection goes on").isEqualTo("VALUE a 5\r\nhello\r\nEND\r\n");
    }

    @Test
    void aRefusedValueIsSkippedInReadsOfEverySizeAndWhatFollowsItInTheSameReadIsServed() throws Exception {
        Socket client = start();
        String large = "y".repeat(200 * 1024);
        byte[] all = ("set big " + large.length() + "\r\n" + large + "\r\nset a 2\r\nok\r\nget a\r\n").getBytes(StandardCharsets.US_ASCII);
        // The header line itself split, so that the decoder refuses the frame from the bytes held; then
        // the value in pieces, the last one ending with the next commands.
        int[] cuts = {4, 13, 14, 1000, 70_000, 150_000, all.length};
        int at = 0;
        for (int cut : cuts) {
            client.getOutputStream().write(all, at, cut - at);
            client.getOutputStream().flush();
            at = cut;
            Thread.sleep(20);
        }
        assertThat(read(client, "END\r\n")).isEqualTo("SERVER_ERROR object too large for cache\r\nSTORED\r\nVALUE a 2\r\nok\r\nEND\r\n");
        assertThat(this.store.refusals).hasSize(1);
    }

    @Test
    void aMalformedHeaderClosesTheConnectionWithItsReason() throws Exception {
        Socket client = start();
        write(client, "set a many\r\n");
        assertThat(read(client, "\r\n")).isEqualTo("CLIENT_ERROR bad command line format\r\n");
        assertThat(client.getInputStream().read()).as("closed").isEqualTo(-1);
        assertThat(this.store.refusals).singleElement().satisfies((refusal) -> {
            assertThat(refusal.reason()).isEqualTo(Reason.MALFORMED);
            assertThat(refusal.skips()).isFalse();
        });
    }

    private static void write(Socket client, String text) throws IOException {
        OutputStream out = client.getOutputStream();
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** @return what the server sent, up to and including the first time it ends with the text given */
    private static String read(Socket client, String end) throws IOException {
        InputStream in = client.getInputStream();
        ByteArrayOutputStream read = new ByteArrayOutputStream();
        while (!read.toString(StandardCharsets.US_ASCII).endsWith(end)) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("Closed after " + read.toString(StandardCharsets.US_ASCII));
            }
            read.write(b);
        }
        return read.toString(StandardCharsets.US_ASCII);
    }

    /**
     * The store's decoder: a frame is a command line, and for {@code set} the value and its CRLF after
     * it. Stateless, as a decoder is: what it needs of a frame's start it reads again from the bytes.
     */
    static final class StoreDecoder implements FrameDecoder {

        @Override
        public long frameLength(ByteBuffer in) throws FramingException {
            return frameLength(in, 0);
        }

        @Override
        public long frameLength(ByteBuffer in, int searched) throws FramingException {
            int start = in.position();
            // The bytes searched before held no line feed: the search goes on after them.
            for (int i = start + searched; i < in.limit(); i++) {
                if (in.get(i) == '\n') {
                    return length(in, start, i);
                }
            }
            return MORE;
        }

        @Override
        public int trailerLength(ByteBuffer frame) {
            return 2;
        }

        /** @return the whole frame's length, told by its command line, which ends at the line feed given */
        private static long length(ByteBuffer in, int start, int lineFeed) throws FramingException {
            int line = lineFeed + 1 - start;
            String[] words = StandardCharsets.US_ASCII.decode(in.duplicate().limit(lineFeed + 1).position(start)).toString().strip().split(" ");
            if (words.length == 2 && words[0].equals("get")) {
                return line;
            }
            if (words.length != 3 || !words[0].equals("set") || !words[2].matches("[0-9]{1,9}")) {
                throw new FramingException("bad command line format");
            }
            int bytes = Integer.parseInt(words[2]);
            long whole = line + (long) bytes + 2;
            if (bytes > MOST_VALUE) {
                throw FramingException.skipping(whole, Reason.TOO_LARGE, "object too large for cache");
            }
            return whole;
        }
    }

    /** The store: keeps values by key, answers as memcached does, refusals included. */
    static final class Store implements ConnectionHandler {

        final Map<String, String> values = new ConcurrentHashMap<>();

        final List<FramingException> refusals = new CopyOnWriteArrayList<>();

        @Override
        public void onData(Connection connection, ByteBuffer frame) {
            String text = StandardCharsets.US_ASCII.decode(frame).toString();
            int lineEnd = text.indexOf("\r\n");
            String[] words = ((lineEnd >= 0) ? text.substring(0, lineEnd) : text).split(" ");
            String reply;
            if (words[0].equals("set")) {
                this.values.put(words[1], text.substring(lineEnd + 2));
                reply = "STORED\r\n";
            }
            else {
                String value = this.values.get(words[1]);
                reply = ((value != null) ? "VALUE " + words[1] + " " + value.length() + "\r\n" + value + "\r\n" : "") + "END\r\n";
            }
            connection.write(ByteBuffer.wrap(reply.getBytes(StandardCharsets.US_ASCII)));
        }

        @Override
        public void onError(Connection connection, Throwable error) {
            if (error instanceof FramingException refusal) {
                this.refusals.add(refusal);
                String answer = (refusal.reason() == Reason.TOO_LARGE) ? "SERVER_ERROR " : "CLIENT_ERROR ";
                String why = refusal.getMessage().substring(refusal.getMessage().indexOf(": ") + 2);
                connection.write(ByteBuffer.wrap((answer + why + "\r\n").getBytes(StandardCharsets.US_ASCII)));
            }
        }
    }
}
