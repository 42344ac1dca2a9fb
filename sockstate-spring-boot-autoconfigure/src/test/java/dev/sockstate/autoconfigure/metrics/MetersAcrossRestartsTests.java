package dev.sockstate.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The meters stay true when the server is stopped and started again with its context (as a
 * checkpoint and restore does): after each restart, gauges read the running listener, and counters
 * and timers go on adding up.
 */
class MetersAcrossRestartsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateMetricsAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class).withBean(Echo.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0",
                    "sockstate.shutdown.timeout=1s");

    @Test
    void afterEachRestartGaugesReadTheRunningListenerAndCountsGoOnAddingUp() {
        this.runner.run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            List<Socket> open = new ArrayList<>();
            double handlerCalls = 0;
            try {
                for (int round = 1; round <= 3; round++) {
                    if (round > 1) {
                        context.stop();
                        assertThat(registry.get("sockstate.registrations.active").tag("listener", "echo").gauge().value())
                                .as("nothing registered while the server is stopped").isZero();
                        context.start();
                    }
                    Socket client = echoOnce(context);
                    open.add(client);
                    awaitGauge(registry, "sockstate.connections.active", 1);
                    assertThat(registry.get("sockstate.registrations.active").tag("listener", "echo").gauge().value())
                            .as("round %d: the listener's own and the open connection's", round).isEqualTo(2);
                    // A call is counted as it returns, which may be just after the client read the echo.
                    double expected = handlerCalls + 2;
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (handlerCalls(registry) < expected && System.nanoTime() < deadline) {
                        Thread.sleep(10);
                    }
                    assertThat(handlerCalls(registry)).as("round %d: handler calls so far (this round's open and read at least)", round)
                            .isGreaterThanOrEqualTo(expected);
                    handlerCalls = handlerCalls(registry);
                    assertThat(registry.get("sockstate.connections.accepted").tag("listener", "echo").counter().count())
                            .isEqualTo(round);
                }
                assertThat(registry.get("sockstate.dequeues").tag("outcome", "notified").functionCounter().count()).isPositive();
            }
            finally {
                for (Socket client : open) {
                    client.close();
                }
            }
        });
    }

    private static double handlerCalls(MeterRegistry registry) {
        return registry.get("sockstate.handler").tag("listener", "echo").tag("outcome", "success").functionTimer().count();
    }

    private static Socket echoOnce(AssertableApplicationContext context) throws Exception {
        int port = context.getEnvironment().getProperty("local.sockstate.echo.port", Integer.class);
        Socket client = new Socket(InetAddress.getLoopbackAddress(), port);
        client.setSoTimeout(5000);
        client.getOutputStream().write(new byte[] { 1, 2, 3 });
        assertThat(client.getInputStream().readNBytes(3)).containsExactly(1, 2, 3);
        return client;
    }

    private static void awaitGauge(MeterRegistry registry, String name, double value) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (registry.get(name).tag("listener", "echo").gauge().value() != value && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(registry.get(name).tag("listener", "echo").gauge().value()).as(name).isEqualTo(value);
    }

    @SocketHandler("echo")
    static class Echo {

        @OnData
        ByteBuffer echo(ByteBuffer data) {
            return data;
        }
    }
}
