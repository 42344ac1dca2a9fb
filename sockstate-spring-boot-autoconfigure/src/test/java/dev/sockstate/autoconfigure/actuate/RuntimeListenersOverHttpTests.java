package dev.sockstate.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sockstate.autoconfigure.ClientProperties;
import dev.sockstate.autoconfigure.ListenerProperties;
import dev.sockstate.autoconfigure.SocketListenerRegistry;
import dev.sockstate.server.BoundListener;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.spring.handler.OnData;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * A listener and a client added through the {@link SocketListenerRegistry} bean while the application
 * runs, and removed again, as an operator sees them over real HTTP: the endpoint, the health and
 * Prometheus' scrape show them while they run and forget them once removed; a bad property is refused
 * naming it.
 */
@SpringBootTest(classes = ObservabilityApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0", "sockstate.workers.threads=1",
                "sockstate.shutdown.timeout=2s", "management.endpoints.web.exposure.include=prometheus,sockstate,health",
                "management.endpoint.health.show-details=always" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@DirtiesContext
class RuntimeListenersOverHttpTests {

    /** A tenant's handler, an object with annotated methods as a {@code @SocketHandler} bean has. */
    static class Upper {

        @OnData
        byte[] upper(ByteBuffer data) {
            return StandardCharsets.US_ASCII.decode(data).toString().toUpperCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII);
        }
    }

    @LocalServerPort
    private int httpPort;

    @Autowired
    private SocketListenerRegistry registry;

    @Test
    @SuppressWarnings("unchecked")
    void anAddedListenerAndClientAreShownWhileTheyRunAndForgottenOnceRemoved() throws Exception {
        ListenerProperties tenant = new ListenerProperties();
        tenant.setAddress("127.0.0.1");
        tenant.setPort(0);
        BoundListener bound = this.registry.addListener("tenant", tenant, new Upper());
        try (Socket peer = new Socket(InetAddress.getLoopbackAddress(), bound.portNumber())) {
            peer.setSoTimeout(5000);
            peer.getOutputStream().write("hello".getBytes(StandardCharsets.US_ASCII));
            assertThat(new String(peer.getInputStream().readNBytes(5), StandardCharsets.US_ASCII)).isEqualTo("HELLO");
        }
        ClientProperties backend = new ClientProperties();
        backend.setAddress(List.of("127.0.0.1:" + bound.portNumber()));
        SocketClient client = this.registry.addClient("backend", backend, null);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (client.connections().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        Http http = new Http(this.httpPort);
        Map<String, Object> endpoint = http.json("/actuator/sockstate");
        assertThat((List<Map<String, Object>>) endpoint.get("listeners")).extracting((listener) -> listener.get("name"))
                .containsExactly("echo", "tenant");
        assertThat((List<Map<String, Object>>) endpoint.get("clients")).extracting((each) -> each.get("name")).containsExactly("backend");
        Map<String, Object> health = http.json("/actuator/health/sockstate");
        assertThat(health).containsEntry("status", "UP");
        assertThat((Map<String, Object>) ((Map<String, Object>) health.get("details")).get("listeners")).containsKeys("echo", "tenant");
        String scrape = http.get("/actuator/prometheus").body();
        assertThat(scrape).contains("sockstate_connections_accepted_total{", "listener=\"tenant\"", "client=\"backend\"");

        assertThat(this.registry.removeClient("backend")).isTrue();
        assertThat(this.registry.removeListener("tenant")).isTrue();
        endpoint = http.json("/actuator/sockstate");
        assertThat((List<Map<String, Object>>) endpoint.get("listeners")).extracting((listener) -> listener.get("name"))
                .containsExactly("echo");
        assertThat((List<Map<String, Object>>) endpoint.get("clients")).isEmpty();
        health = http.json("/actuator/health/sockstate");
        assertThat(health).containsEntry("status", "UP");
        assertThat((Map<String, Object>) ((Map<String, Object>) health.get("details")).get("listeners")).containsOnlyKeys("echo");
        scrape = http.get("/actuator/prometheus").body();
        assertThat(scrape).doesNotContain("listener=\"tenant\"").doesNotContain("client=\"backend\"").contains("listener=\"echo\"");
    }

    @Test
    void aListenerWithoutAPortIsRefusedNamingTheProperty() {
        ListenerProperties portless = new ListenerProperties();
        portless.setAddress("127.0.0.1");
        assertThatThrownBy(() -> this.registry.addListener("portless", portless, new Upper()))
                .isInstanceOf(InvalidConfigurationPropertyValueException.class).hasMessageContaining("sockstate.listeners.portless.port");
        assertThat(this.registry.listeners()).extracting(BoundListener::name).doesNotContain("portless");
    }
}
