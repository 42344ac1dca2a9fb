package dev.sockstate.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.heartbeat.Heartbeat;
import dev.sockstate.spring.handler.OnMessage;
import dev.sockstate.spring.handler.SocketHandler;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The heartbeat example of the listeners page ({@code docs/heartbeat.yml}, on an ephemeral port): its keys
 * bind to the heartbeat they describe, and with its idle time cut short a quiet client reads the ping
 * as the page writes it, escapes read.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HeartbeatDocsTests {

    @SocketHandler("devices")
    static class Devices {

        @OnMessage
        String line(String line) {
            return line;
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateAutoConfiguration.class))
            .withInitializer(DocsYaml.load("docs/heartbeat.yml"))
            .withPropertyValues("sockstate.listeners.devices.address=127.0.0.1", "sockstate.listeners.devices.port=0",
                    "sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s")
            .withUserConfiguration(Devices.class);

    @Test
    void theDocumentedHeartbeatBinds() {
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            Heartbeat heartbeat = (Heartbeat) context.getBean(SocketServer.class).listenerSettings("devices").connection().stages().get(0);
            assertThat(heartbeat.idle()).isEqualTo(Duration.ofSeconds(30));
            assertThat(heartbeat.timeout()).isEqualTo(Duration.ofSeconds(10));
        });
    }

    @Test
    void aQuietClientReadsThePingAsThePageWritesIt() {
        this.runner.withPropertyValues("sockstate.listeners.devices.heartbeat.idle=100ms").run((context) -> {
            assertThat(context).hasNotFailed();
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(),
                    context.getBean(SocketServer.class).listener("devices").portNumber())) {
                client.setSoTimeout(5000);
                assertThat(new String(client.getInputStream().readNBytes(6), StandardCharsets.UTF_8)).isEqualTo("PING\r\n");
            }
        });
    }
}
