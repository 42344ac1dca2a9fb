package dev.sockstate.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.ReceiveMode;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.spring.handler.OnDatagram;
import dev.sockstate.spring.handler.SocketHandler;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The receive-per-worker example of the listeners page ({@code docs/udp.yml}): its keys bind, and, on an
 * ephemeral port of loopback, its four workers each receive datagrams from their own socket.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReceivePerWorkerDocsTests {

    @SocketHandler("metrics")
    static class Metrics {

        final Set<String> threads = ConcurrentHashMap.newKeySet();

        @OnDatagram
        byte[] receive(byte[] datagram) {
            this.threads.add(Thread.currentThread().getName());
            return datagram;
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateAutoConfiguration.class))
            .withInitializer(DocsYaml.load("docs/udp.yml"))
            .withUserConfiguration(Metrics.class);

    @Test
    void theDocumentedListenerBinds() {
        this.runner.withPropertyValues("sockstate.auto-startup=false").run((context) -> {
            assertThat(context).hasNotFailed();
            ListenerSettings metrics = context.getBean(SocketServer.class).listenerSettings("metrics");
            assertThat(metrics.receive()).isEqualTo(ReceiveMode.PER_WORKER);
            assertThat(metrics.portNumber()).isEqualTo(8125);
            assertThat(metrics.receiveBatch()).isEqualTo(64);
            assertThat(metrics.maxDatagramSize()).isEqualTo(1500);
        });
    }

    @Test
    void everyWorkerReceivesFromItsOwnSocket() {
        this.runner.withPropertyValues("sockstate.listeners.metrics.port=0", "sockstate.listeners.metrics.address=127.0.0.1").run((context) -> {
            assertThat(context).hasNotFailed();
            SocketServer server = context.getBean(SocketServer.class);
            assertThat(server.listener("metrics").registrations()).as("a socket per worker").isEqualTo(4);
            InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.listener("metrics").portNumber());
            for (int c = 0; c < 64; c++) {
                try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
                    client.setSoTimeout(5000);
                    byte[] gauge = ("requests:" + c + "|g").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                    client.send(new DatagramPacket(gauge, gauge.length, target));
                    DatagramPacket echo = new DatagramPacket(new byte[64], 64);
                    client.receive(echo);
                    assertThat(echo.getLength()).isEqualTo(gauge.length);
                }
            }
            assertThat(context.getBean(Metrics.class).threads).as("workers that received (64 senders over 4 sockets)").hasSize(4);
        });
    }
}
