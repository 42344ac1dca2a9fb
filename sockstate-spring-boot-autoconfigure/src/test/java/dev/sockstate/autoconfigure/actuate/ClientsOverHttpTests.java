package dev.sockstate.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.RefusingPorts;
import dev.sockstate.server.Connection;
import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.spring.handler.OnMessage;
import dev.sockstate.spring.handler.OnOpen;
import dev.sockstate.spring.handler.SocketHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A gateway over real HTTP: a client {@code echo} whose backend is a sockstate listener of the same
 * server on loopback, served by a {@code @SocketHandler(client = "echo")} bean and injected by name
 * as a {@code SocketClient}; and a client {@code down} whose backend refuses. The endpoint lists both
 * with their connections, health is UP for one and DOWN naming the refusal for the other, and the
 * readiness probe stays UP (neither asks to be part of it).
 */
@SpringBootTest(classes = ClientsOverHttpTests.GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sockstate.workers.threads=1", "sockstate.listeners.backend.address=127.0.0.1",
                "sockstate.listeners.backend.framing.type=line", "sockstate.clients.echo.framing.type=line",
                "sockstate.clients.echo.pool.size=2", "sockstate.clients.down.framing.type=line",
                "sockstate.clients.down.reconnect.initial=50ms", "sockstate.clients.down.reconnect.max=200ms",
                "management.endpoints.web.exposure.include=health,sockstate", "management.endpoint.health.show-details=always",
                "management.endpoint.health.probes.enabled=true" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@DirtiesContext
class ClientsOverHttpTests {

    private static final int BACKEND = freePort();

    private static final int NOTHING = freePort();

    @DynamicPropertySource
    static void ports(DynamicPropertyRegistry properties) {
        properties.add("sockstate.listeners.backend.port", () -> BACKEND);
        properties.add("sockstate.clients.echo.address", () -> "127.0.0.1:" + BACKEND);
        properties.add("sockstate.clients.down.address", () -> "127.0.0.1:" + NOTHING);
    }

    @LocalServerPort
    private int httpPort;

    @Autowired
    private Callers callers;

    @Autowired
    private EchoClient echoHandler;

    @Test
    @SuppressWarnings("unchecked")
    void theEndpointListsTheClientsWithTheirConnectionsAndHealthTellsEachClientsState() throws Exception {
        assertThat(this.echoHandler.pushes.poll(10, TimeUnit.SECONDS)).isEqualTo("welcome");
        assertThat(this.echoHandler.pushes.poll(10, TimeUnit.SECONDS)).as("one greeting per pool connection").isEqualTo("welcome");
        assertThat(this.callers.echo.request("ping", String.class).get(10, TimeUnit.SECONDS)).isEqualTo("ping");
        assertThat(this.callers.down.request("ping")).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(Exception.class)
                .havingCause().isInstanceOf(ClientException.class);
        Http http = new Http(this.httpPort);
        Map<String, Object> endpoint = http.json("/actuator/sockstate");
        List<Map<String, Object>> clients = (List<Map<String, Object>>) endpoint.get("clients");
        assertThat(clients).extracting((client) -> client.get("name")).containsExactly("echo", "down");
        Map<String, Object> echo = clients.get(0);
        assertThat(echo).containsEntry("addresses", List.of("127.0.0.1:" + BACKEND)).containsEntry("poolSize", 2)
                .containsEntry("running", true).containsEntry("framed", true).containsEntry("tls", false)
                .containsEntry("pendingRequests", 0);
        assertThat((List<Map<String, Object>>) echo.get("connections")).hasSize(2).allSatisfy((connection) -> {
            assertThat(connection).containsEntry("remoteAddress", "127.0.0.1:" + BACKEND);
            assertThat((String) connection.get("localAddress")).startsWith("127.0.0.1:");
        });
        assertThat((List<Object>) clients.get(1).get("connections")).isEmpty();

        Map<String, Object> echoHealth = http.json("/actuator/health/sockstateClients/echo");
        assertThat(echoHealth).containsEntry("status", "UP");
        assertThat((Map<String, Object>) echoHealth.get("details")).containsEntry("connections", 2).containsEntry("poolSize", 2);
        var down = http.get("/actuator/health/sockstateClients/down");
        assertThat(down.statusCode()).isEqualTo(503);
        Map<String, Object> downHealth = org.springframework.boot.json.JsonParserFactory.getJsonParser().parseMap(down.body());
        assertThat(downHealth).containsEntry("status", "DOWN");
        assertThat((String) ((Map<String, Object>) downHealth.get("details")).get("reason"))
                .startsWith("Client 'down' has no open connection: Client 'down' could not connect (127.0.0.1:" + NOTHING);
        assertThat(http.get("/actuator/health/readiness").statusCode()).as("no client is part of readiness").isEqualTo(200);
        assertThat(http.json("/actuator/health/sockstate")).containsEntry("status", "UP");
    }

    private static int freePort() {
        try {
            return RefusingPorts.unused();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** What the application injects: each client by its parameter's name. */
    record Callers(SocketClient echo, SocketClient down) {
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

    /** The echo client's handler: the frames no request is owed. */
    @SocketHandler(client = "echo")
    static class EchoClient {

        final BlockingQueue<String> pushes = new LinkedBlockingQueue<>();

        @OnMessage
        void pushed(String message) {
            this.pushes.add(message);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class GatewayApplication {

        @Bean
        Backend backend() {
            return new Backend();
        }

        @Bean
        EchoClient echoClient() {
            return new EchoClient();
        }

        @Bean
        Callers callers(SocketClient echo, SocketClient down) {
            return new Callers(echo, down);
        }
    }
}
