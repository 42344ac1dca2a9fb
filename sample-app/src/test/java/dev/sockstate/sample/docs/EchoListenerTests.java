package dev.sockstate.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.boot.test.LocalListenerPort;
import dev.sockstate.server.engine.EmbeddedConnection;
import dev.sockstate.server.engine.SocketServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The testing page's two ways to test the sample's {@code echo} listener with the whole application
 * started: over a real socket on the port it bound, and in memory on its settings.
 */
// tag::echo-listener-annotations[]
@SpringBootTest(properties = { "management.server.port=0", "server.port=0" })
// end::echo-listener-annotations[]
class EchoListenerTests {

    // tag::echo-listener-members[]
    @LocalListenerPort("echo")
    int port;

    @Autowired
    SocketServer server;

    @Test
    void echoesOverASocket() throws IOException {
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), this.port)) {
            client.setSoTimeout(5000);
            client.getOutputStream().write("hello\n".getBytes(StandardCharsets.UTF_8));
            assertThat(new String(client.getInputStream().readNBytes(6), StandardCharsets.UTF_8)).isEqualTo("hello\n");
        }
    }

    @Test
    void echoesInMemory() {
        try (EmbeddedConnection connection = EmbeddedConnection.open(this.server.listenerSettings("echo"))) {
            connection.writeInbound("hello\n");
            assertThat(connection.readAllOutboundText()).isEqualTo("hello\n");
        }
    }
    // end::echo-listener-members[]
}
