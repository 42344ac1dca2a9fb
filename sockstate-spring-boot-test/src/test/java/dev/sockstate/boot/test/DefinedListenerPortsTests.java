package dev.sockstate.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@code @SpringBootTest(webEnvironment = DEFINED_PORT)}, as for the web server, keeps the ports the
 * configuration names: the listener binds exactly the one configured.
 */
@SpringBootTest(classes = EchoApplication.class, webEnvironment = WebEnvironment.DEFINED_PORT,
        properties = { "sockstate.workers.threads=1", "sockstate.listeners.echo.address=127.0.0.1", "server.port=0" })
class DefinedListenerPortsTests {

    private static final int FREE = free();

    @LocalListenerPort("echo")
    private int echoPort;

    @DynamicPropertySource
    static void configuredPort(DynamicPropertyRegistry registry) {
        registry.add("sockstate.listeners.echo.port", () -> FREE);
    }

    @Test
    void theListenerBindsTheConfiguredPort() throws IOException {
        assertThat(this.echoPort).isEqualTo(FREE);
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), FREE)) {
            client.setSoTimeout(5000);
            client.getOutputStream().write(new byte[] { 9 });
            assertThat(client.getInputStream().read()).isEqualTo(9);
        }
    }

    /** A port free a moment ago: released at once, for the listener to bind. */
    private static int free() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
