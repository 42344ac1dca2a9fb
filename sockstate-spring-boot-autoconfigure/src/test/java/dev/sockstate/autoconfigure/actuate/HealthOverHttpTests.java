package dev.sockstate.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Backends;
import dev.sockstate.port.ForwardingBackend;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NotificationPort;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.context.annotation.Bean;

/** The health indicator turns DOWN, over real HTTP, when the notification port closes and its workers end. */
@SpringBootTest(classes = { ObservabilityApplication.class, HealthOverHttpTests.PortCapture.class },
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0", "sockstate.workers.threads=2",
                "management.endpoints.web.exposure.include=health,sockstate", "management.endpoint.health.show-details=always",
                "management.endpoint.health.probes.enabled=true" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@DirtiesContext
class HealthOverHttpTests {

    @LocalServerPort
    private int httpPort;

    @Autowired
    private CapturingBackend backend;

    @Test
    @SuppressWarnings("unchecked")
    void healthIsUpThenDownWithTheReasonWhenThePortCloses() throws Exception {
        Http http = new Http(this.httpPort);
        assertThat(http.json("/actuator/health/sockstate")).containsEntry("status", "UP");
        this.backend.ports.forEach(NotificationPort::close);
        Map<String, Object> health = null;
        long deadline = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < deadline) {
            var response = http.get("/actuator/health/sockstate");
            health = org.springframework.boot.json.JsonParserFactory.getJsonParser().parseMap(response.body());
            if ("DOWN".equals(health.get("status"))) {
                assertThat(response.statusCode()).isEqualTo(503);
                break;
            }
            Thread.sleep(20);
        }
        assertThat(health).containsEntry("status", "DOWN");
        assertThat((Map<String, Object>) health.get("details")).containsEntry("reason",
                "the notification port of worker group 'default' is closed");
        assertThat(http.get("/actuator/health/readiness").statusCode()).as("readiness follows").isEqualTo(503);
        Map<String, Object> endpoint = http.json("/actuator/sockstate");
        Map<String, Object> group = ((List<Map<String, Object>>) endpoint.get("groups")).get(0);
        assertThat(group).containsEntry("portOpen", false);
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class PortCapture {

        @Bean
        CapturingBackend capturingBackend() {
            return new CapturingBackend(Backends.select("auto"));
        }
    }

    /** A backend that keeps the ports it opens, so that the test can close one as a failure would. */
    static class CapturingBackend extends ForwardingBackend {

        final List<NotificationPort> ports = new CopyOnWriteArrayList<>();

        CapturingBackend(Backend delegate) {
            super(delegate);
        }

        @Override
        public NotificationPort openPort() throws NativeIoException {
            NotificationPort port = super.openPort();
            this.ports.add(port);
            return port;
        }
    }
}
