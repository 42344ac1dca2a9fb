package dev.sockstate.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.client.ClientHeartbeat;
import dev.sockstate.server.engine.SocketServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The client heartbeat example of the clients page ({@code docs/client-heartbeat.yml}): its keys bind to
 * the heartbeat they describe, the ping one message of the client's framing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientHeartbeatDocsTests {

    @Test
    void theDocumentedHeartbeatBinds() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SockstateAutoConfiguration.class))
                .withInitializer(DocsYaml.load("docs/client-heartbeat.yml"))
                .withPropertyValues("sockstate.workers.threads=1", "sockstate.auto-startup=false").run((context) -> {
                    assertThat(context).hasNotFailed();
                    ClientHeartbeat heartbeat = context.getBean(SocketServer.class).clientSettings().get(0).heartbeat();
                    assertThat(heartbeat.idle()).isEqualTo(Duration.ofSeconds(30));
                    assertThat(heartbeat.timeout()).isEqualTo(Duration.ofSeconds(5));
                    assertThat((byte[]) heartbeat.ping()).isEqualTo("PING".getBytes(StandardCharsets.UTF_8));
                });
    }
}
