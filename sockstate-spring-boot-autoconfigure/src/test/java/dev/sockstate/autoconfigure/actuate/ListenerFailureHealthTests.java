package dev.sockstate.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Backends;
import dev.sockstate.port.ForwardingBackend;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.RefusingPort;
import java.net.InetAddress;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;

/**
 * A listener that stops serving for good (the port refused to re-arm its socket, which is then
 * closed) turns the health DOWN over real HTTP, naming the listener, while its workers live on, and
 * is counted.
 */
@SpringBootTest(classes = { ObservabilityApplication.class, ListenerFailureHealthTests.Refusing.class },
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0", "sockstate.workers.threads=2",
                "sockstate.workers.port-per-worker=false",
                "management.endpoints.web.exposure.include=health,sockstate,metrics", "management.endpoint.health.show-details=always" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@DirtiesContext
class ListenerFailureHealthTests {

    /** The listening socket is registered first: slot 0, generation 1. */
    private static final long LISTENER_KEY = 1L << 32;

    @LocalServerPort
    private int httpPort;

    @Autowired
    private Environment environment;

    @Autowired
    private RefusingBackend backend;

    @Test
    @SuppressWarnings("unchecked")
    void aListenerWhoseReArmIsRefusedTurnsTheHealthDownNamingIt() throws Exception {
        Http http = new Http(this.httpPort);
        assertThat(http.json("/actuator/health/sockstate")).containsEntry("status", "UP");
        int port = this.environment.getProperty("local.sockstate.echo.port", Integer.class);
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
            // accepted; the listener's re-arm that follows is refused
        }
        Map<String, Object> health = null;
        long deadline = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < deadline) {
            var response = http.get("/actuator/health/sockstate");
            health = JsonParserFactory.getJsonParser().parseMap(response.body());
            if ("DOWN".equals(health.get("status"))) {
                assertThat(response.statusCode()).isEqualTo(503);
                break;
            }
            Thread.sleep(20);
        }
        assertThat(this.backend.ports).allSatisfy((refusing) -> assertThat(refusing.enables()).isGreaterThanOrEqualTo(2));
        assertThat(health).containsEntry("status", "DOWN");
        assertThat((Map<String, Object>) health.get("details")).containsEntry("reason", "listener 'echo' stopped serving");
        Map<String, Object> endpoint = http.json("/actuator/sockstate");
        Map<String, Object> listener = ((List<Map<String, Object>>) endpoint.get("listeners")).get(0);
        assertThat(listener).containsEntry("name", "echo").containsEntry("serving", false);
        assertThat(http.metric("sockstate.listeners.failed", "COUNT", "listener:echo")).as("counted").isEqualTo(1);
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Refusing {

        @Bean
        RefusingBackend refusingBackend() {
            return new RefusingBackend(Backends.select("auto"));
        }
    }

    /** Opens ports that refuse the listener's second ENABLE: the re-arm after its first accept. */
    static class RefusingBackend extends ForwardingBackend {

        final List<RefusingPort> ports = new CopyOnWriteArrayList<>();

        RefusingBackend(Backend delegate) {
            super(delegate);
        }

        @Override
        public NotificationPort openPort() throws NativeIoException {
            RefusingPort port = new RefusingPort(super.openPort(), LISTENER_KEY, 1);
            this.ports.add(port);
            return port;
        }
    }
}
