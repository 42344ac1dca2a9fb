package dev.sockstate.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.sample.EchoHandler;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The quick start of the README and the getting-started page: the echo listener's configuration
 * ({@code docs/getting-started.yml}) and the sample's echo handler, on an ephemeral port.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuickStartTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateAutoConfiguration.class))
            .withInitializer(DocsYaml.load("docs/getting-started.yml"))
            .withPropertyValues("sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0",
                    "sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s")
            .withUserConfiguration(EchoHandler.class);

    @Test
    void theEchoListenerWritesBackWhatArrives() {
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            int port = context.getEnvironment().getProperty("local.sockstate.echo.port", Integer.class);
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                client.setSoTimeout(5000);
                client.getOutputStream().write("hello\n".getBytes(StandardCharsets.UTF_8));
                assertThat(new String(client.getInputStream().readNBytes(6), StandardCharsets.UTF_8)).isEqualTo("hello\n");
            }
        });
    }
}
