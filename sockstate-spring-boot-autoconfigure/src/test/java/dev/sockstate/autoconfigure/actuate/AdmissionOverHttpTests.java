package dev.sockstate.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;

/**
 * A listener's admission as an operator sees it over real HTTP: refused connections from sources bound
 * in 127.0.0.0/8, counted by reason in Prometheus' scrape and in the endpoint, with the rules themselves.
 */
@SpringBootTest(classes = ObservabilityApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0", "sockstate.workers.threads=1",
                "sockstate.listeners.echo.admission.deny=127.0.0.66",
                "sockstate.listeners.echo.admission.max-connections-per-source=2",
                "sockstate.listeners.echo.admission.source-rate.per-second=50", "sockstate.listeners.echo.admission.source-rate.burst=100",
                "management.endpoints.web.exposure.include=prometheus,sockstate" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@DirtiesContext
class AdmissionOverHttpTests {

    @LocalServerPort
    private int httpPort;

    @Autowired
    private Environment environment;

    private final List<Socket> peers = new ArrayList<>();

    @AfterEach
    void close() throws IOException {
        for (Socket peer : this.peers) {
            peer.close();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void refusalsAreCountedByReasonInTheScrapeAndTheEndpoint() throws Exception {
        int port = this.environment.getProperty("local.sockstate.echo.port", Integer.class);
        assertThat(echoesFrom("127.0.0.66", port)).as("a denied source").isFalse();
        assertThat(echoes(connectFrom("127.0.0.67", port))).isTrue();
        assertThat(echoes(connectFrom("127.0.0.67", port))).isTrue();
        assertThat(echoesFrom("127.0.0.67", port)).as("a source at its cap").isFalse();
        assertThat(echoes(connectFrom("127.0.0.68", port))).isTrue();
        Http http = new Http(this.httpPort);
        String prometheus = http.get("/actuator/prometheus").body();
        assertThat(rejected(prometheus, "denied")).isEqualTo(1);
        assertThat(rejected(prometheus, "source-limit")).isEqualTo(1);
        assertThat(rejected(prometheus, "max-connections")).isZero();
        assertThat(rejected(prometheus, "listener-rate")).isZero();
        assertThat(prometheus).as("no source address in a meter").doesNotContain("127.0.0.6");
        Map<String, Object> listener = ((List<Map<String, Object>>) http.json("/actuator/sockstate").get("listeners")).get(0);
        assertThat(listener).containsEntry("rejected", 2);
        assertThat((Map<String, Object>) listener.get("rejectedBy")).containsOnly(Map.entry("denied", 1), Map.entry("source-limit", 1));
        assertThat((Map<String, Object>) listener.get("admission")).containsEntry("deny", List.of("127.0.0.66"))
                .containsEntry("maxConnectionsPerSource", 2).containsEntry("sourceRate", "50.0/s, burst 100")
                .containsEntry("maxSources", 65536);
    }

    private Socket connectFrom(String source, int port) throws IOException {
        Socket peer = new Socket();
        this.peers.add(peer);
        peer.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
        peer.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 5000);
        peer.setSoTimeout(5000);
        return peer;
    }

    /** @return whether a connection from the source echoes; false for one reset as it was accepted */
    private boolean echoesFrom(String source, int port) throws IOException {
        try {
            return echoes(connectFrom(source, port));
        }
        catch (SocketException ex) {
            return false;
        }
    }

    /** @return whether the peer's byte came back; false for a connection closed unheard */
    private static boolean echoes(Socket peer) throws IOException {
        try {
            peer.getOutputStream().write('x');
            return peer.getInputStream().read() == 'x';
        }
        catch (SocketException ex) {
            return false;
        }
    }

    private static double rejected(String scrape, String reason) {
        Matcher matcher = Pattern.compile("(?m)^sockstate_connections_rejected_total\\{[^}]*reason=\"" + reason + "\"[^}]*} ([0-9.eE+]+)$")
                .matcher(scrape);
        assertThat(matcher.find()).as("the %s series in the scrape", reason).isTrue();
        return Double.parseDouble(matcher.group(1));
    }
}
