package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.engine.SocketServer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A UDP listener's {@code receive-batch} and {@code max-datagram-size}: mapped onto the runtime's
 * settings, their defaults, and values out of range refused naming their property. The server is
 * built, not started.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DatagramPropertiesTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withUserConfiguration(TestHandlers.AllConfiguration.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=1s", "sockstate.auto-startup=false",
                    "sockstate.listeners.echo.port=0", "sockstate.listeners.upper.port=0", "sockstate.listeners.udp.protocol=udp",
                    "sockstate.listeners.udp.port=0");

    @Test
    void aUdpListenersBatchAndDatagramRoomAreMapped() {
        this.runner.withPropertyValues("sockstate.listeners.udp.receive-batch=64", "sockstate.listeners.udp.max-datagram-size=2KB")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    ListenerSettings udp = context.getBean(SocketServer.class).listenerSettings("udp");
                    assertThat(udp.receiveBatch()).isEqualTo(64);
                    assertThat(udp.maxDatagramSize()).isEqualTo(2048);
                });
    }

    @Test
    void aUdpListenerTakesSixteenDatagramsACallIntoTheGroupsReadBufferSizeUnlessToldOtherwise() {
        this.runner.run((context) -> {
            ListenerSettings udp = context.getBean(SocketServer.class).listenerSettings("udp");
            assertThat(udp.receiveBatch()).isEqualTo(ListenerSettings.DEFAULT_RECEIVE_BATCH).isEqualTo(16);
            assertThat(udp.maxDatagramSize()).as("the group's read buffer size").isZero();
        });
    }

    @Test
    void aBatchOverTheSystemsLimitFailsNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.udp.receive-batch=2000")
                .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining("sockstate.listeners.udp.receive-batch").hasMessageContaining("between 1 and 1024"));
    }

    @Test
    void aDatagramRoomOverWhatUdpCarriesFailsNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.udp.max-datagram-size=1MB")
                .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining("sockstate.listeners.udp.max-datagram-size").hasMessageContaining("65536"));
    }
}
