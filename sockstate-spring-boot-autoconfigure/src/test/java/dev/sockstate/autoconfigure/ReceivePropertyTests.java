package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.ReceiveMode;
import dev.sockstate.server.engine.SocketServer;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code sockstate.listeners.<name>.receive}: shared, or per-worker on a group with a port per worker. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReceivePropertyTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withUserConfiguration(TestHandlers.AllConfiguration.class)
            .withPropertyValues("sockstate.workers.threads=2", "sockstate.shutdown.timeout=5s", "sockstate.listeners.echo.port=0",
                    "sockstate.listeners.upper.port=0", "sockstate.listeners.udp.protocol=udp", "sockstate.listeners.udp.address=127.0.0.1",
                    "sockstate.listeners.udp.port=0");

    @Test
    void aUdpListenerReceivesSharedUnlessToldOtherwise() {
        this.runner.run((context) -> assertThat(context.getBean(SocketServer.class).listenerSettings("udp").receive())
                .isEqualTo(ReceiveMode.SHARED));
    }

    @Test
    void perWorkerGivesTheListenerASocketPerWorkerThatAnswers() throws Exception {
        this.runner.withPropertyValues("sockstate.listeners.udp.receive=per-worker").run((context) -> {
            assertThat(context).hasNotFailed();
            SocketServer server = context.getBean(SocketServer.class);
            assertThat(server.listenerSettings("udp").receive()).isEqualTo(ReceiveMode.PER_WORKER);
            assertThat(server.listener("udp").registrations()).as("a socket per worker").isEqualTo(2);
            InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.listener("udp").portNumber());
            for (int c = 0; c < 8; c++) {
                try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
                    client.setSoTimeout(5000);
                    byte[] text = ("ping " + c).getBytes(StandardCharsets.UTF_8);
                    client.send(new DatagramPacket(text, text.length, target));
                    DatagramPacket reply = new DatagramPacket(new byte[64], 64);
                    client.receive(reply);
                    assertThat(new String(reply.getData(), 0, reply.getLength(), StandardCharsets.UTF_8)).isEqualTo("ping " + c);
                }
            }
        });
    }

    @Test
    void perWorkerOnWorkersSharingOnePortFailsTheStartNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.udp.receive=per-worker", "sockstate.workers.port-per-worker=false")
                .run((context) -> {
                    InvalidConfigurationPropertyValueException failure = StartupFailures.find(context,
                            InvalidConfigurationPropertyValueException.class);
                    assertThat(failure.getName()).hasToString("sockstate.listeners.udp.receive");
                    assertThat(failure).hasMessageContaining("worker group 'default'").hasMessageContaining("portPerWorker");
                });
    }

    @Test
    void perWorkerOnATcpListenerFailsTheStartNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.echo.receive=per-worker")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class).getName())
                        .hasToString("sockstate.listeners.echo.receive"));
    }

    @Test
    void perWorkerBesideMulticastFailsTheStartNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.udp.receive=per-worker", "sockstate.listeners.udp.address=0.0.0.0",
                "sockstate.listeners.udp.multicast.groups[0].address=239.1.2.3")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class))
                        .satisfies((failure) -> assertThat(failure.getName()).hasToString("sockstate.listeners.udp.receive"))
                        .hasMessageContaining("every socket bound to the port"));
    }
}
