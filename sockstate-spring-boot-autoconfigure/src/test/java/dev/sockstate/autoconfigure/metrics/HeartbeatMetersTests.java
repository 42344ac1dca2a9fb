package dev.sockstate.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.Connection;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.heartbeat.Heartbeat;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A listener's {@code heartbeat.*} properties: the stage they make, its pings and timeouts over a real
 * socket and in {@code sockstate.heartbeats}, and the properties refused naming what is wrong.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HeartbeatMetersTests {

    @SocketHandler("beating")
    static class Echo {

        @OnData
        ByteBuffer echo(ByteBuffer data) {
            return data;
        }
    }

    /** Pings with the connection's number, as a protocol might. */
    static class NumberedPinger implements Heartbeat.Pinger {

        @Override
        public ByteBuffer ping(Connection connection) {
            return ByteBuffer.wrap(("PING " + connection.id() + "\n").getBytes(StandardCharsets.US_ASCII));
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateMetricsAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class).withBean(Echo.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.listeners.beating.address=127.0.0.1",
                    "sockstate.listeners.beating.port=0", "sockstate.shutdown.timeout=1s");

    @Test
    void aQuietPeerIsPingedThenAbortedAndBothAreCounted() {
        this.runner.withPropertyValues("sockstate.listeners.beating.heartbeat.idle=200ms",
                "sockstate.listeners.beating.heartbeat.timeout=300ms", "sockstate.listeners.beating.heartbeat.ping=PING\\r\\n")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    SocketServer server = context.getBean(SocketServer.class);
                    try (Socket peer = new Socket(InetAddress.getLoopbackAddress(), server.listener("beating").portNumber())) {
                        peer.setSoTimeout(5000);
                        assertThat(new String(peer.getInputStream().readNBytes(6), StandardCharsets.US_ASCII)).isEqualTo("PING\r\n");
                        assertThat(ended(peer)).as("aborted after the unanswered ping").isTrue();
                    }
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get("sockstate.heartbeats").tag("listener", "beating").tag("outcome", "sent").functionCounter()
                            .count()).isEqualTo(1);
                    assertThat(registry.get("sockstate.heartbeats").tag("outcome", "timed-out").functionCounter().count()).isEqualTo(1);
                });
    }

    @Test
    void aPingerBeanMakesEachConnectionsPing() {
        this.runner.withBean("numbered", NumberedPinger.class)
                .withPropertyValues("sockstate.listeners.beating.heartbeat.idle=100ms", "sockstate.listeners.beating.heartbeat.pinger=numbered")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    Heartbeat heartbeat = (Heartbeat) context.getBean(SocketServer.class).listenerSettings("beating").connection().stages()
                            .get(0);
                    assertThat(heartbeat.idle()).isEqualTo(Duration.ofMillis(100));
                    assertThat(heartbeat.timeout()).as("the default").isEqualTo(Duration.ofSeconds(10));
                    try (Socket peer = new Socket(InetAddress.getLoopbackAddress(),
                            context.getBean(SocketServer.class).listener("beating").portNumber())) {
                        peer.setSoTimeout(5000);
                        assertThat(new String(peer.getInputStream().readNBytes(7), StandardCharsets.US_ASCII)).isEqualTo("PING 1\n");
                    }
                });
    }

    @Test
    void aPingWithoutAnIdleTimeFailsNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.beating.heartbeat.ping=PING")
                .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("sockstate.listeners.beating.heartbeat.idle"));
    }

    @Test
    void anIdleTimeWithoutAPingFailsNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.beating.heartbeat.idle=30s")
                .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("sockstate.listeners.beating.heartbeat.ping").hasMessageContaining("one of the two"));
    }

    private static boolean ended(Socket peer) throws java.io.IOException {
        try {
            return peer.getInputStream().read() == -1;
        }
        catch (SocketException ex) {
            return true;
        }
    }
}
