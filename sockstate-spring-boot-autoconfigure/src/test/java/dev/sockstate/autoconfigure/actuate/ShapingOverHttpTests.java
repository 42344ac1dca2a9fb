package dev.sockstate.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.shaping.Shaping;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;

/**
 * A listener's traffic shaping as an operator sees it over real HTTP: an echo held to its write rate,
 * the time its connection was throttled in Prometheus' scrape, the rates in the endpoint, and a change
 * through the {@link SocketServer} bean that lifts them while the listener runs.
 */
@SpringBootTest(classes = ObservabilityApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0", "sockstate.workers.threads=1",
                "sockstate.listeners.echo.shaping.connection-write=256KB", "sockstate.listeners.echo.shaping.total-read=1MB",
                "management.endpoints.web.exposure.include=prometheus,sockstate" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@DirtiesContext
class ShapingOverHttpTests {

    private static final int ECHOED = 512 * 1024;

    @LocalServerPort
    private int httpPort;

    @Autowired
    private Environment environment;

    @Autowired
    private SocketServer server;

    @Test
    @SuppressWarnings("unchecked")
    void anEchoKeepsToItsWriteRateIsCountedThrottledAndRunsFreeOnceTheRatesAreLifted() throws Exception {
        int port = this.environment.getProperty("local.sockstate.echo.port", Integer.class);
        long shapedNanos = echo(port);
        double seconds = shapedNanos / 1e9;
        assertThat(ECHOED / seconds).as("bytes a second echoed").isBetween(256 * 1024 * 0.9, 256 * 1024 * 1.1);
        Http http = new Http(this.httpPort);
        assertThat(throttled(http.get("/actuator/prometheus").body(), "write")).as("seconds throttled writing")
                .isGreaterThan(seconds * 0.5);
        Map<String, Object> listener = ((List<Map<String, Object>>) http.json("/actuator/sockstate").get("listeners")).get(0);
        assertThat((Map<String, Object>) listener.get("shaping")).containsEntry("connectionWrite", 256 * 1024)
                .containsEntry("totalRead", 1024 * 1024).containsEntry("connectionRead", 0).containsEntry("totalWrite", 0);

        assertThat(this.server.changeShaping("echo", Shaping.NONE)).isEqualTo(new Shaping(0, 256 * 1024, 1024 * 1024, 0));
        listener = ((List<Map<String, Object>>) http.json("/actuator/sockstate").get("listeners")).get(0);
        assertThat(listener.get("shaping")).as("the endpoint's shaping once lifted").isNull();
        assertThat(TimeUnit.NANOSECONDS.toMillis(echo(port))).as("ms to echo the same once lifted").isLessThan(1000);
    }

    /** @return the nanoseconds a connection took to echo {@link #ECHOED} bytes */
    private static long echo(int port) throws Exception {
        try (Socket peer = new Socket(InetAddress.getLoopbackAddress(), port)) {
            peer.setSoTimeout(10_000);
            long start = System.nanoTime();
            Thread writer = new Thread(() -> {
                try {
                    peer.getOutputStream().write(new byte[ECHOED]);
                }
                catch (IOException ex) {
                    // The read below fails the test.
                }
            });
            writer.start();
            InputStream in = peer.getInputStream();
            byte[] chunk = new byte[64 * 1024];
            long read = 0;
            while (read < ECHOED) {
                int n = in.read(chunk);
                assertThat(n).as("the echo's bytes").isPositive();
                read += n;
            }
            long took = System.nanoTime() - start;
            writer.join(5000);
            return took;
        }
    }

    private static double throttled(String scrape, String direction) {
        Matcher matcher = Pattern.compile("(?m)^sockstate_connections_throttled_seconds_total\\{[^}]*direction=\"" + direction
                + "\"[^}]*listener=\"echo\"[^}]*} ([0-9.eE+]+)$").matcher(scrape);
        assertThat(matcher.find()).as("the %s series in the scrape", direction).isTrue();
        return Double.parseDouble(matcher.group(1));
    }
}
