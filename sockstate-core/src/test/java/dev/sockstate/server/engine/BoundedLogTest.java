package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.framing.FrameDecoder;
import dev.sockstate.server.framing.FrameEncoder;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.framing.FramingException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a peer's bytes can do to the log: nothing but appear in it, escaped. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BoundedLogTest {

    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    @Test
    void controlCharactersAreEscapedAndPlainTextIsLeftAsItIs() {
        assertThat(BoundedLog.escaped("plain text, é and ü")).isEqualTo("plain text, é and ü");
        assertThat(BoundedLog.escaped("GET\r\n2026-01-01 WARN forged\u0000\u007f\u0085\u2028"))
                .isEqualTo("GET\\x0d\\x0a2026-01-01 WARN forged\\x00\\x7f\\x85\\u2028");
        assertThat(BoundedLog.escaped("a\\x0d b")).as("a peer's text that looks like an escape").isEqualTo("a\\\\x0d b");
    }

    /**
     * A decoder of the application's that quotes the peer's bytes in its refusal, as protocol
     * decoders do ("unknown command 'x'"): the CR and LF the peer put in them reach the log escaped,
     * in one line, over a real connection.
     */
    @Test
    void aRefusalThatQuotesThePeersBytesIsLoggedOnOneLine() throws Exception {
        FrameDecoder quoting = new FrameDecoder() {
            @Override
            public long frameLength(ByteBuffer in) throws FramingException {
                byte[] bytes = new byte[in.remaining()];
                in.duplicate().get(bytes);
                throw new FramingException("unknown command '" + new String(bytes, StandardCharsets.ISO_8859_1) + "'");
            }
        };
        List<String> lines;
        try (LogLines log = new LogLines(ListenerState.class)) {
            lines = log.lines();
            ListenerSettings listener = ServerFixture.tcp("quoting").framing(Framing.of(quoting, FrameEncoder.AS_IS))
                    .handler(new EchoHandler()).build();
            SocketServer server = this.fixture.start(1, listener);
            try (Socket peer = this.fixture.connect(server, "quoting")) {
                peer.getOutputStream().write("x\r\n2026-12-02 WARN forged line".getBytes(StandardCharsets.US_ASCII));
                assertThat(peer.getInputStream().read()).as("closed for the refusal").isEqualTo(-1);
            }
            ServerFixture.await(() -> lines.stream().anyMatch((line) -> line.contains("unknown command")), "the refusal logged");
        }
        assertThat(lines).filteredOn((line) -> line.contains("unknown command")).singleElement().asString()
                .contains("unknown command 'x\\x0d\\x0a2026-12-02 WARN forged line'").doesNotContain("\r").doesNotContain("\n");
    }
}
