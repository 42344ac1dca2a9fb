package dev.sockstate.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The {@code sockstate} endpoint over real HTTP in an application whose own JSON is written in
 * snake case: the endpoint keeps its documented keys (its answers are the actuator's own, not the
 * application's), and {@code /actuator/sockstate/{listener}} answers one listener, or 404, with how it
 * accepts and the PROXY protocol it reads.
 */
@SpringBootTest(classes = ObservabilityApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0", "sockstate.workers.threads=1",
                "sockstate.listeners.echo.proxy-protocol=v1", "sockstate.listeners.echo.trusted-proxies=127.0.0.0/8",
                "management.endpoints.web.exposure.include=sockstate", "spring.jackson.property-naming-strategy=SNAKE_CASE" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@DirtiesContext
class EndpointOverHttpTests {

    @LocalServerPort
    private int httpPort;

    @Test
    @SuppressWarnings("unchecked")
    void theEndpointKeepsItsKeysWhateverTheApplicationsJsonSettings() throws Exception {
        Map<String, Object> endpoint = new Http(this.httpPort).json("/actuator/sockstate");
        Map<String, Object> echo = ((List<Map<String, Object>>) endpoint.get("listeners")).get(0);
        assertThat(echo).containsKey("activeConnections").doesNotContainKey("active_connections");
    }

    @Test
    void oneListenerHasAPathOfItsOwn() throws Exception {
        Http http = new Http(this.httpPort);
        Map<String, Object> echo = http.json("/actuator/sockstate/echo");
        assertThat(echo).containsEntry("name", "echo").containsEntry("bound", true).containsEntry("trigger", "level-persistent")
                .containsEntry("accept", "shared").containsEntry("proxyProtocol", Map.of("version", "v1", "trustedProxies",
                        List.of("127.0.0.0/8"), "headerTimeout", "PT5S", "maxHeaderSize", 4096));
        assertThat(http.get("/actuator/sockstate/nosuchlistener").statusCode()).isEqualTo(404);
    }
}
