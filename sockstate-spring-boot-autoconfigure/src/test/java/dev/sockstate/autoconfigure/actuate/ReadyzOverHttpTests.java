package dev.sockstate.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.engine.SocketServer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * Kubernetes' probes on the application's own port ({@code add-additional-paths}): {@code /readyz}
 * answers 200 while the socket server serves, and 503 once it stopped, while {@code /livez} stays 200
 * (a stopped socket server is no reason to restart the application).
 */
@SpringBootTest(classes = ObservabilityApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0", "sockstate.workers.threads=1",
                "management.endpoint.health.probes.enabled=true", "management.endpoint.health.probes.add-additional-paths=true" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@DirtiesContext
class ReadyzOverHttpTests {

    @LocalServerPort
    private int httpPort;

    @Autowired
    private SocketServer server;

    @Test
    void readyzFollowsTheSocketServerAndLivezDoesNot() throws Exception {
        Http http = new Http(this.httpPort);
        assertThat(http.get("/readyz").statusCode()).isEqualTo(200);
        assertThat(http.get("/livez").statusCode()).isEqualTo(200);
        this.server.stop(Duration.ofSeconds(1));
        assertThat(http.get("/readyz").statusCode()).isEqualTo(503);
        assertThat(http.get("/livez").statusCode()).isEqualTo(200);
    }
}
