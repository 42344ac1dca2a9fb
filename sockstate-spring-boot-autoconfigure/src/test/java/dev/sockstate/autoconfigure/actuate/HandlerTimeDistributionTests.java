package dev.sockstate.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import java.net.InetAddress;
import java.net.Socket;
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
 * Handler time configured as Spring Boot configures any timer's distribution
 * ({@code management.metrics.distribution.*}): histogram buckets, SLO boundaries and percentiles
 * appear in the Prometheus scrape, counted from real calls, and percentiles are computed (Prometheus
 * shows none beside a histogram).
 */
@SpringBootTest(classes = ObservabilityApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0", "sockstate.workers.threads=2",
                "management.endpoints.web.exposure.include=prometheus",
                "management.metrics.distribution.percentiles-histogram.sockstate.handler=true",
                "management.metrics.distribution.slo.sockstate.handler=5s",
                "management.metrics.distribution.percentiles.sockstate.handler=0.99" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@DirtiesContext
class HandlerTimeDistributionTests {

    private static final int MESSAGES = 20;

    @LocalServerPort
    private int httpPort;

    @Autowired
    private Environment environment;

    @Autowired
    private MeterRegistry registry;

    @Test
    void histogramSloAndPercentilesOfHandlerTimeReachPrometheus() throws Exception {
        int echoPort = this.environment.getProperty("local.sockstate.echo.port", Integer.class);
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), echoPort)) {
            client.setSoTimeout(5000);
            for (int m = 0; m < MESSAGES; m++) {
                client.getOutputStream().write(new byte[10]);
                client.getInputStream().readNBytes(10);
            }
        }
        Http http = new Http(this.httpPort);
        double count = 0;
        String scrape = "";
        long deadline = System.currentTimeMillis() + 10_000;
        while (count < MESSAGES && System.currentTimeMillis() < deadline) {
            scrape = http.get("/actuator/prometheus").body();
            count = value(scrape, "sockstate_handler_seconds_count", "");
            if (count < MESSAGES) {
                Thread.sleep(50);
            }
        }
        assertThat(count).isGreaterThanOrEqualTo(MESSAGES);
        assertThat(value(scrape, "sockstate_handler_seconds_bucket", "le=\"5.0\"")).as("calls under the 5 s SLO").isEqualTo(count);
        assertThat(value(scrape, "sockstate_handler_seconds_bucket", "le=\"\\+Inf\"")).isEqualTo(count);
        assertThat(scrape).as("more buckets than the SLO's: the percentiles histogram")
                .containsPattern("sockstate_handler_seconds_bucket\\{[^}]*le=\"0\\.001\"");
        HistogramSnapshot snapshot = this.registry.get("sockstate.handler").tag("listener", "echo").tag("outcome", "success").timer()
                .takeSnapshot();
        assertThat(snapshot.percentileValues()).as("percentiles computed in the process").singleElement()
                .satisfies((percentile) -> {
                    assertThat(percentile.percentile()).isEqualTo(0.99);
                    assertThat(percentile.value()).isGreaterThan(0);
                });
        assertThat(value(scrape, "sockstate_handler_seconds_max", "")).isGreaterThan(0);
    }

    /** @return the value of the echo listener's successful calls' series holding {@code label} */
    private static double value(String scrape, String series, String label) {
        Matcher matcher = Pattern.compile("(?m)^" + series + "\\{([^}]*)} ([0-9.eE+-]+)$").matcher(scrape);
        while (matcher.find()) {
            String labels = matcher.group(1);
            if (labels.contains("listener=\"echo\"") && labels.contains("outcome=\"success\"")
                    && Pattern.compile(label).matcher(labels).find()) {
                return Double.parseDouble(matcher.group(2));
            }
        }
        return -1;
    }
}
