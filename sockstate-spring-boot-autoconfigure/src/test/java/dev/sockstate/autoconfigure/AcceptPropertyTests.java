package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.AcceptMode;
import dev.sockstate.server.engine.SocketServer;
import java.net.InetAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code sockstate.listeners.<name>.accept}: shared, or per-worker on a group with a port per worker. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AcceptPropertyTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withUserConfiguration(TestHandlers.EchoConfiguration.class)
            .withPropertyValues("sockstate.workers.threads=2", "sockstate.shutdown.timeout=5s", "sockstate.listeners.echo.address=127.0.0.1",
                    "sockstate.listeners.echo.port=0");

    @Test
    void aListenerAcceptsSharedUnlessToldOtherwise() {
        this.runner.run((context) -> assertThat(context.getBean(SocketServer.class).listenerSettings("echo").accept())
                .isEqualTo(AcceptMode.SHARED));
    }

    @Test
    void perWorkerGivesTheListenerASocketPerWorkerThatServes() {
        this.runner.withPropertyValues("sockstate.listeners.echo.accept=per-worker").run((context) -> {
            assertThat(context).hasNotFailed();
            SocketServer server = context.getBean(SocketServer.class);
            assertThat(server.listenerSettings("echo").accept()).isEqualTo(AcceptMode.PER_WORKER);
            for (int c = 0; c < 8; c++) {
                try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.listener("echo").portNumber())) {
                    client.setSoTimeout(5000);
                    client.getOutputStream().write(c);
                    assertThat(client.getInputStream().read()).isEqualTo(c);
                }
            }
        });
    }

    @Test
    void perWorkerOnWorkersSharingOnePortFailsTheStartNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.echo.accept=per-worker", "sockstate.workers.port-per-worker=false")
                .run((context) -> {
                    InvalidConfigurationPropertyValueException failure = StartupFailures.find(context,
                            InvalidConfigurationPropertyValueException.class);
                    assertThat(failure.getName()).hasToString("sockstate.listeners.echo.accept");
                    assertThat(failure).hasMessageContaining("worker group 'default'").hasMessageContaining("portPerWorker");
                });
    }

    @Test
    void perWorkerOnAUdpListenerFailsTheStartNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.echo.accept=per-worker", "sockstate.listeners.echo.protocol=udp")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class).getName())
                        .hasToString("sockstate.listeners.echo.accept"));
    }
}
