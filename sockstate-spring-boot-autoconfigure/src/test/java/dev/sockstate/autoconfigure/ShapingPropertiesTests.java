package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.shaping.Shaping;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The {@code shaping.*} properties of listeners and clients: sizes a second mapped onto the runtime's
 * {@link Shaping}, and rates that cannot be refused naming their property. The server is built, not
 * started.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShapingPropertiesTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=1s", "sockstate.auto-startup=false");

    @Test
    void aListenersAndAClientsRatesAreMappedAsBytesASecond() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class)
                .withPropertyValues("sockstate.listeners.echo.port=0", "sockstate.listeners.echo.shaping.connection-read=64KB",
                        "sockstate.listeners.echo.shaping.connection-write=128KB", "sockstate.listeners.echo.shaping.total-read=1MB",
                        "sockstate.listeners.echo.shaping.total-write=2MB", "sockstate.clients.backend.address=127.0.0.1:7007",
                        "sockstate.clients.backend.shaping.total-write=10MB")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    SocketServer server = context.getBean(SocketServer.class);
                    assertThat(server.listenerSettings("echo").connection().shaping())
                            .isEqualTo(new Shaping(64 * 1024, 128 * 1024, 1024 * 1024, 2 * 1024 * 1024));
                    assertThat(server.clientSettings().get(0).connection().shaping()).isEqualTo(new Shaping(0, 0, 0, 10 * 1024 * 1024));
                });
    }

    @Test
    void aListenerWithoutRatesIsNotShaped() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class).withPropertyValues("sockstate.listeners.echo.port=0")
                .run((context) -> assertThat(context.getBean(SocketServer.class).listenerSettings("echo").connection().shaping())
                        .isEqualTo(Shaping.NONE));
    }

    @Test
    void aRateOfNothingFailsNamingTheProperty() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class)
                .withPropertyValues("sockstate.listeners.echo.port=0", "sockstate.listeners.echo.shaping.total-write=0B")
                .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("sockstate.listeners.echo.shaping.total-write").hasMessageContaining("positive size a second"));
    }

    @Test
    void aUdpListenerWithRatesFailsNamingTheProperty() {
        this.runner.withUserConfiguration(TestHandlers.AllConfiguration.class)
                .withPropertyValues("sockstate.listeners.echo.port=0", "sockstate.listeners.upper.port=0",
                        "sockstate.listeners.udp.protocol=udp", "sockstate.listeners.udp.port=0",
                        "sockstate.listeners.udp.shaping.connection-read=64KB")
                .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining("sockstate.listeners.udp.shaping").hasMessageContaining("none for a UDP listener"));
    }
}
