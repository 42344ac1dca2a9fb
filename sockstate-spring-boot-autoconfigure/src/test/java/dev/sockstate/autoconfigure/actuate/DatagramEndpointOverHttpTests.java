package dev.sockstate.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Multicast;
import dev.sockstate.server.engine.SocketServer;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.OnDatagram;
import dev.sockstate.spring.handler.SocketHandler;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * A UDP listener in the {@code sockstate} endpoint over real HTTP: how it is set to receive
 * ({@code receive}), and the multicast groups it joins, as configured and as changed since. A TCP listener
 * has no {@code receive}. (The server is not started: joining a group needs a multicast interface,
 * which the core's {@code MulticastTest} makes; the endpoint shows the settings the groups change.)
 */
@SpringBootTest(classes = DatagramEndpointOverHttpTests.ReceivingApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sockstate.auto-startup=false", "sockstate.workers.threads=2", "sockstate.listeners.echo.port=0",
                "sockstate.listeners.metrics.protocol=udp", "sockstate.listeners.metrics.port=0", "sockstate.listeners.metrics.receive=per-worker",
                "sockstate.listeners.ticks.protocol=udp", "sockstate.listeners.ticks.port=0",
                "sockstate.listeners.ticks.multicast.groups[0].address=239.1.2.3", "sockstate.listeners.ticks.multicast.groups[1].address=232.1.1.1",
                "sockstate.listeners.ticks.multicast.groups[1].source=10.0.0.5", "sockstate.listeners.ticks.multicast.network-interface=eth9",
                "sockstate.listeners.ticks.multicast.hops=4", "management.endpoints.web.exposure.include=sockstate" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@DirtiesContext
class DatagramEndpointOverHttpTests {

    @LocalServerPort
    private int httpPort;

    @Autowired
    private SocketServer server;

    @Test
    void aUdpListenerSaysHowItReceivesAndATcpListenerDoesNot() throws Exception {
        Http http = new Http(this.httpPort);
        assertThat(http.json("/actuator/sockstate/metrics")).containsEntry("protocol", "udp").containsEntry("receive", "per-worker")
                .doesNotContainKey("multicast");
        assertThat(http.json("/actuator/sockstate/echo")).doesNotContainKey("receive");
    }

    @Test
    void aUdpListenerShowsItsGroupsAsSetAndAsJoinedAndLeftSince() throws Exception {
        Http http = new Http(this.httpPort);
        assertThat(http.json("/actuator/sockstate/ticks")).containsEntry("receive", "shared").containsEntry("multicast", Map.of(
                "groups", List.of(Map.of("address", "239.1.2.3"), Map.of("address", "232.1.1.1", "source", "10.0.0.5")),
                "networkInterface", "eth9", "hops", 4, "loopback", true));
        this.server.joinGroup("ticks", new Multicast.Group(InetAddress.getByName("239.1.2.4"), null));
        this.server.leaveGroup("ticks", new Multicast.Group(InetAddress.getByName("239.1.2.3"), null));
        @SuppressWarnings("unchecked")
        Map<String, Object> multicast = (Map<String, Object>) http.json("/actuator/sockstate/ticks").get("multicast");
        assertThat(multicast.get("groups")).isEqualTo(List.of(Map.of("address", "232.1.1.1", "source", "10.0.0.5"),
                Map.of("address", "239.1.2.4")));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ReceivingApplication {

        @SocketHandler("echo")
        static class Echo {

            @OnData
            ByteBuffer echo(ByteBuffer data) {
                return data;
            }
        }

        @SocketHandler("metrics")
        static class Metrics {

            @OnDatagram
            void receive(byte[] datagram) {
            }
        }

        @SocketHandler("ticks")
        static class Ticks {

            @OnDatagram
            void receive(byte[] datagram) {
            }
        }
    }
}
