package dev.sockstate.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.port.Backend;
import dev.sockstate.port.Backends;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.server.SocketOptions.KeepAlive;
import dev.sockstate.server.SocketOptions;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The socket options example of the listeners page ({@code docs/socket-options.yml}, on an ephemeral
 * port): each key binds to the option it names, and the listener serves with them; on a backend that
 * has not some of them (nio, Windows), the start fails naming the first.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SocketOptionsDocsTests {

    @SocketHandler("gateway")
    static class Echo {

        @OnData
        ByteBuffer echo(ByteBuffer data) {
            return data;
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateAutoConfiguration.class))
            .withInitializer(DocsYaml.load("docs/socket-options.yml"))
            .withPropertyValues("sockstate.listeners.gateway.address=127.0.0.1", "sockstate.listeners.gateway.port=0",
                    "sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s")
            .withUserConfiguration(Echo.class);

    @Test
    void theDocumentedOptionsBindAndTheListenerServesWithThem() {
        this.runner.run((context) -> {
            Backend backend = Backends.select(System.getProperty("sockstate.backend", "auto"));
            if (backend.sockets().unsupported(NativeSocketOption.USER_TIMEOUT, 30_000) != null) {
                // As the page's table says: a backend without TCP_USER_TIMEOUT refuses it, and the start names the property.
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("sockstate.listeners.gateway.user-timeout").hasMessageContaining(backend.name() + " backend");
                return;
            }
            assertThat(context).hasNotFailed();
            SocketServer server = context.getBean(SocketServer.class);
            assertThat(server.listenerSettings("gateway").connection().socketOptions()).isEqualTo(new SocketOptions(true, 0, 256 * 1024,
                    KeepAlive.of(Duration.ofSeconds(60), Duration.ofSeconds(10), 3), Duration.ofSeconds(30), Duration.ZERO, 16 * 1024, 104));
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.listener("gateway").portNumber())) {
                client.setSoTimeout(5000);
                client.getOutputStream().write('x');
                assertThat(client.getInputStream().read()).isEqualTo('x');
            }
        });
    }
}
