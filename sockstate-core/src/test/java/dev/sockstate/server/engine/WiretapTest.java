package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.wiretap.Wiretap;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The wiretap on a real backend: a connection's open, the bytes it read and wrote (hex and text, in
 * lines of 16 bytes, long writes cut short), its hang-up and close, at DEBUG on the listener's own
 * logger, with nothing changed in what passes; and nothing logged, nor formatted, when that logger is
 * off.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WiretapTest {

    private final ServerFixture fixture = new ServerFixture();

    private final Logger logger = Logger.getLogger(Wiretap.LOGGER_PREFIX + "tap");

    private final List<String> lines = new CopyOnWriteArrayList<>();

    private final Handler recording = new Handler() {

        @Override
        public void publish(LogRecord record) {
            WiretapTest.this.lines.add(record.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
        this.logger.removeHandler(this.recording);
        this.logger.setLevel(null);
    }

    /** Echoes each read; writes 300 bytes for "big". */
    private final ConnectionHandler echo = new ConnectionHandler() {

        @Override
        public void onData(Connection connection, ByteBuffer data) {
            if (StandardCharsets.US_ASCII.decode(data.duplicate()).toString().equals("big\n")) {
                connection.write(ByteBuffer.wrap(new byte[300]));
                return;
            }
            connection.write(data);
        }
    };

    @Test
    void eachEventAndItsBytesAreLoggedAtDebugAndPassUnchanged() throws Exception {
        this.logger.setLevel(Level.FINE);
        this.logger.addHandler(this.recording);
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("tap").stage(Wiretap.of("tap"))
                .handler(this.echo).build());
        try (Socket client = this.fixture.connect(server, "tap")) {
            client.setSoTimeout(5000);
            client.getOutputStream().write("hello, wiretap\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(new String(client.getInputStream().readNBytes(15), StandardCharsets.US_ASCII)).isEqualTo("hello, wiretap\n");
            client.getOutputStream().write("big\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(client.getInputStream().readNBytes(300)).hasSize(300);
            client.shutdownOutput();
            assertThat(client.getInputStream().read()).isEqualTo(-1);
        }
        ServerFixture.await(() -> this.lines.stream().anyMatch((line) -> line.endsWith("CLOSED")), "the close logged");
        String prefix = "[tap #";
        assertThat(this.lines).allMatch((line) -> line.startsWith(prefix));
        assertThat(this.lines.get(0)).matches("\\[tap #\\d+\\] OPEN from 127\\.0\\.0\\.1:\\d+ to 127\\.0\\.0\\.1:\\d+");
        assertThat(this.lines).anySatisfy((line) -> assertThat(line).endsWith("READ 15 B\n"
                + "0000  68 65 6c 6c 6f 2c 20 77 69 72 65 74 61 70 0a     |hello, wiretap.|"));
        assertThat(this.lines).anySatisfy((line) -> assertThat(line).endsWith("WRITE 15 B\n"
                + "0000  68 65 6c 6c 6f 2c 20 77 69 72 65 74 61 70 0a     |hello, wiretap.|"));
        assertThat(this.lines).anySatisfy((line) -> assertThat(line).contains("WRITE 300 B\n0000  00 00")
                .contains("\n00f0  00 00").endsWith("|................|\n... 44 B more"));
        assertThat(this.lines).anySatisfy((line) -> assertThat(line).endsWith("HANGUP (the peer's input ended)"));
        assertThat(this.lines.get(this.lines.size() - 1)).endsWith("CLOSED");
    }

    @Test
    void withItsLoggerOffNothingIsLogged() throws Exception {
        this.logger.setLevel(Level.INFO);
        this.logger.addHandler(this.recording);
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("tap").stage(Wiretap.of("tap")).handler(this.echo).build());
        try (Socket client = this.fixture.connect(server, "tap")) {
            client.setSoTimeout(5000);
            client.getOutputStream().write("quiet".getBytes(StandardCharsets.US_ASCII));
            assertThat(new String(client.getInputStream().readNBytes(5), StandardCharsets.US_ASCII)).isEqualTo("quiet");
        }
        assertThat(this.lines).isEmpty();
    }
}
