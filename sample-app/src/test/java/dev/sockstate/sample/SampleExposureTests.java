package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.engine.SocketServer;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * What the sample, the application people copy, exposes as it is configured: every listener bound to
 * the loopback interface (its Redis proxy would otherwise open the redis-server behind it to the
 * network), and health details for authorized users only.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "management.server.port=0")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@DirtiesContext
class SampleExposureTests {

    @Autowired
    private SocketServer server;

    @LocalManagementPort
    private int managementPort;

    @Test
    void everyListenerIsBoundToTheLoopbackInterfaceUnlessToldOtherwise() throws Exception {
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        assertThat(this.server.listenerSettings()).isNotEmpty().allSatisfy((listener) -> assertThat(listener.address())
                .as(listener.name()).isEqualTo(loopback));
    }

    @Test
    void anAnonymousCallerSeesEachIndicatorsStatusButNotItsDetails() throws Exception {
        HttpResponse<String> health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + this.managementPort + "/actuator/health")).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(health.body()).contains("\"sockstate\"").contains("\"status\"").doesNotContain("\"backend\"")
                .doesNotContain("\"details\"");
    }
}
