package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Bytes leave in the order their writes returned, whichever thread wrote them: a write from another
 * thread that returned while the handler ran is sent before the handler's own later write, and
 * before the FIN the handler asks for afterwards.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WriteOrderTest {

    private final ServerFixture fixture = new ServerFixture();

    private final ExecutorService other = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
        this.other.shutdownNow();
    }

    @Test
    void aWriteFromAnotherThreadThatReturnedFirstIsSentFirst() throws Exception {
        Socket client = serve((connection, written) -> connection.write(bytes("B")));
        client.getOutputStream().write('?');
        assertThat(new String(client.getInputStream().readNBytes(2), StandardCharsets.US_ASCII)).isEqualTo("AB");
    }

    @Test
    void aWriteFromAnotherThreadThatReturnedFirstIsSentBeforeTheFin() throws Exception {
        Socket client = serve((connection, written) -> connection.shutdownOutput());
        client.getOutputStream().write('?');
        client.setSoTimeout(3000);
        InputStream in = client.getInputStream();
        assertThat(new String(in.readNBytes(1), StandardCharsets.US_ASCII)).isEqualTo("A");
        assertThat(in.read()).isEqualTo(-1);
    }

    /** A handler whose onData has another thread write "A", waits until that write returned, then acts. */
    private Socket serve(BiConsumer<Connection, Boolean> then) throws Exception {
        ConnectionHandler handler = (connection, data) -> {
            data.position(data.limit());
            this.other.submit(() -> connection.write(bytes("A"))).get(10, TimeUnit.SECONDS);
            then.accept(connection, true);
        };
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("order").handler(handler).build());
        return this.fixture.connect(server, "order");
    }

    private static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }
}
