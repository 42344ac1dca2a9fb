package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Half-closing: the FIN a handler asks for, whichever thread and callback it asks from. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HalfCloseTest {

    private final ServerFixture fixture = new ServerFixture();

    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
        this.executor.shutdownNow();
    }

    @Test
    void shutdownOutputFromOnOpenSendsTheFinAfterTheGreeting() throws Exception {
        ConnectionHandler greeter = new ConnectionHandler() {

            @Override
            public void onOpen(Connection connection) {
                connection.write(ByteBuffer.wrap("bye".getBytes(StandardCharsets.US_ASCII)));
                connection.shutdownOutput();
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
            }
        };
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("greet").handler(greeter).build());
        assertGreetingThenEndOfStream(this.fixture.connect(server, "greet"));
    }

    @Test
    void shutdownOutputFromAHandlerOnTheExecutorSendsTheFinAfterTheReply() throws Exception {
        ConnectionHandler replier = (connection, data) -> {
            connection.write(ByteBuffer.wrap("bye".getBytes(StandardCharsets.US_ASCII)));
            connection.shutdownOutput();
        };
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("reply").handlerExecutor(this.executor).handler(replier).build());
        Socket client = this.fixture.connect(server, "reply");
        client.getOutputStream().write('?');
        assertGreetingThenEndOfStream(client);
    }

    private static void assertGreetingThenEndOfStream(Socket client) throws IOException {
        client.setSoTimeout(3000);
        InputStream in = client.getInputStream();
        assertThat(new String(in.readNBytes(3), StandardCharsets.US_ASCII)).isEqualTo("bye");
        assertThat(in.read()).as("the FIN, with nothing else arriving").isEqualTo(-1);
    }
}
