package dev.sockstate.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.port.RefusingPorts;
import dev.sockstate.server.Connection;
import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.spring.handler.OnMessage;
import dev.sockstate.spring.handler.OnOpen;
import dev.sockstate.spring.handler.SocketHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A client's meters in a real context, its backend a sockstate listener of the same server on
 * loopback: its connects, open connections, requests and their time, pending requests, and its
 * connections' traffic tagged {@code client}; and a backend that is down, counted refused.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientMetersTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateMetricsAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class).withBean(Backend.class).withBean(EchoClient.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=1s",
                    "sockstate.listeners.backend.address=127.0.0.1", "sockstate.listeners.backend.framing.type=line",
                    "sockstate.clients.echo.framing.type=line", "sockstate.clients.echo.request-timeout=5s");

    @Test
    void aClientsConnectsRequestsAndTrafficAreMeteredUnderItsName() throws Exception {
        int port = freePort();
        this.runner.withPropertyValues("sockstate.listeners.backend.port=" + port, "sockstate.clients.echo.address=127.0.0.1:" + port)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    EchoClient handler = context.getBean(EchoClient.class);
                    assertThat(handler.pushes.poll(10, TimeUnit.SECONDS)).as("the backend's greeting, owed to no request")
                            .isEqualTo("welcome");
                    SocketClient echo = context.getBean("echo", SocketClient.class);
                    assertThat(echo.request("ping", String.class).get(10, TimeUnit.SECONDS)).isEqualTo("ping");
                    assertThat(registry.get("sockstate.client.connects").tag("client", "echo").tag("outcome", "connected").counter()
                            .count()).isEqualTo(1);
                    assertThat(registry.get("sockstate.client.connections").tag("client", "echo").gauge().value()).isEqualTo(1);
                    assertThat(registry.get("sockstate.client.requests").tag("client", "echo").tag("outcome", "success").functionTimer()
                            .count()).isEqualTo(1);
                    assertThat(registry.get("sockstate.client.requests.pending").tag("client", "echo").gauge().value()).isZero();
                    assertThat(registry.get("sockstate.data.sent").tag("client", "echo").counter().count()).isEqualTo(5);
                    assertThat(registry.get("sockstate.data.received").tag("client", "echo").counter().count()).isEqualTo(13);
                    assertThat(registry.get("sockstate.handler").tag("client", "echo").tag("outcome", "success").meters()).isNotEmpty();
                    assertThat(registry.find("sockstate.connections.accepted").tag("client", "echo").meters())
                            .as("a client accepts nothing").isEmpty();
                    assertThat(registry.get("sockstate.connections.accepted").tag("listener", "backend").counter().count()).isEqualTo(1);
                });
    }

    @Test
    void aBackendThatIsDownCountsRefusedConnectsAndFailsRequests() throws Exception {
        int port = freePort();
        this.runner.withPropertyValues("sockstate.listeners.backend.port=0", "sockstate.clients.echo.address=127.0.0.1:" + port,
                "sockstate.clients.echo.reconnect.initial=50ms", "sockstate.clients.echo.reconnect.max=50ms").run((context) -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    await(() -> registry.get("sockstate.client.connects").tag("client", "echo").tag("outcome", "refused").counter()
                            .count() >= 2);
                    SocketClient echo = context.getBean("echo", SocketClient.class);
                    assertThat(echo.request("ping")).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(Exception.class)
                            .havingCause().isInstanceOf(ClientException.class).withMessageContaining("Client 'echo' has no open connection");
                    await(() -> registry.get("sockstate.client.requests").tag("client", "echo").tag("outcome", "failed").functionTimer()
                            .count() == 1);
                    assertThat(registry.get("sockstate.client.connections").tag("client", "echo").gauge().value()).isZero();
                });
    }

    private static int freePort() throws IOException {
        return RefusingPorts.unused();
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("within 10 s").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /** A line echo that greets each connection first. */
    @SocketHandler("backend")
    static class Backend {

        @OnOpen
        void greet(Connection connection) {
            connection.send("welcome");
        }

        @OnMessage
        String echo(String line) {
            return line;
        }
    }

    /** The client's handler: the frames no request is owed. */
    @SocketHandler(client = "echo")
    static class EchoClient {

        final AtomicInteger opened = new AtomicInteger();

        final BlockingQueue<String> pushes = new LinkedBlockingQueue<>();

        @OnOpen
        void opened() {
            this.opened.incrementAndGet();
        }

        @OnMessage
        void pushed(String message) {
            this.pushes.add(message);
        }
    }
}
