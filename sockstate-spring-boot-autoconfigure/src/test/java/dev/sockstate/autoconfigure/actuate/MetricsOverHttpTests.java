package dev.sockstate.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backend;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.util.ArrayList;
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
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.core.env.Environment;

/** Metrics, the endpoint and health over real HTTP, after known traffic on real sockets. */
@SpringBootTest(classes = ObservabilityApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0", "sockstate.workers.threads=2",
                "management.endpoints.web.exposure.include=health,metrics,prometheus,sockstate",
                "management.endpoint.health.show-details=always", "management.endpoint.health.probes.enabled=true" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@DirtiesContext
class MetricsOverHttpTests {

    private static final int CONNECTIONS = 5;

    private static final int MESSAGES = 10;

    private static final int MESSAGE_SIZE = 100;

    @LocalServerPort
    private int httpPort;

    @Autowired
    private Environment environment;

    @Autowired
    private Backend backend;

    @Test
    @SuppressWarnings("unchecked")
    void countersAgreeWithTheTrafficAndTheEndpointAndHealthDescribeTheServer() throws Exception {
        Http http = new Http(this.httpPort);
        int echoPort = this.environment.getProperty("local.sockstate.echo.port", Integer.class);
        List<Socket> clients = new ArrayList<>();
        for (int c = 0; c < CONNECTIONS; c++) {
            Socket client = new Socket(InetAddress.getLoopbackAddress(), echoPort);
            client.setSoTimeout(5000);
            clients.add(client);
            for (int m = 0; m < MESSAGES; m++) {
                client.getOutputStream().write(new byte[MESSAGE_SIZE]);
                client.getInputStream().readNBytes(MESSAGE_SIZE);
            }
        }
        assertThat(http.metric("sockstate.connections.active", "VALUE", "listener:echo")).isEqualTo(CONNECTIONS);
        assertThat(http.metric("sockstate.registrations.active", "VALUE", "listener:echo")).isEqualTo(CONNECTIONS + 1);
        Map<String, Object> endpoint = http.json("/actuator/sockstate");
        assertThat((Map<String, Object>) endpoint.get("backend")).containsEntry("name", "epoll").containsEntry("available", true);
        Map<String, Object> listener = ((List<Map<String, Object>>) endpoint.get("listeners")).get(0);
        assertThat(listener).containsEntry("name", "echo").containsEntry("protocol", "tcp").containsEntry("port", echoPort)
                .containsEntry("trigger", "level-persistent").containsEntry("activeConnections", CONNECTIONS).containsEntry("bound", true);
        Map<String, Object> group = ((List<Map<String, Object>>) endpoint.get("groups")).get(0);
        assertThat((List<?>) group.get("workers")).hasSize(2);
        for (Socket client : clients) {
            client.close();
        }
        long deadline = System.currentTimeMillis() + 10_000;
        // A REMOVE is counted when its batch call returns, which may be just after another worker
        // dequeued its notification and closed the connection.
        while ((http.metric("sockstate.registrations.active", "VALUE", "listener:echo") != 1
                || http.metric("sockstate.registrations", "COUNT", "listener:echo", "operation:remove", "result:success") != CONNECTIONS)
                && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        assertThat(http.metric("sockstate.registrations.active", "VALUE", "listener:echo")).as("back to the listener's own")
                .isEqualTo(1);
        assertThat(http.metric("sockstate.connections.active", "VALUE", "listener:echo")).isZero();
        assertThat(http.metric("sockstate.connections.accepted", "COUNT", "listener:echo")).isEqualTo(CONNECTIONS);
        assertThat(http.metric("sockstate.connections.rejected", "COUNT", "listener:echo")).isZero();
        assertThat(http.metric("sockstate.handler.refused", "COUNT", "listener:echo")).isZero();
        assertThat(http.metric("sockstate.notifications", "COUNT", "listener:echo", "event:in"))
                .isGreaterThanOrEqualTo(CONNECTIONS * MESSAGES);
        assertThat(http.metric("sockstate.notifications", "COUNT", "listener:echo", "event:remove")).isEqualTo(CONNECTIONS);
        assertThat(http.metric("sockstate.data.received", "COUNT", "listener:echo")).isEqualTo(CONNECTIONS * MESSAGES * MESSAGE_SIZE);
        assertThat(http.metric("sockstate.data.sent", "COUNT", "listener:echo")).isEqualTo(CONNECTIONS * MESSAGES * MESSAGE_SIZE);
        assertThat(http.metric("sockstate.handler", "COUNT", "listener:echo", "outcome:success"))
                .isGreaterThanOrEqualTo(CONNECTIONS * MESSAGES);
        assertThat(http.metric("sockstate.registrations", "COUNT", "listener:echo", "operation:remove", "result:success"))
                .isEqualTo(CONNECTIONS);
        assertThat(http.metric("sockstate.registrations", "COUNT", "listener:echo", "operation:enable", "result:success"))
                .as("level-persistent on a port per worker (the default): a connection is registered once, not re-armed a message")
                .isGreaterThanOrEqualTo(CONNECTIONS).isLessThan(CONNECTIONS * MESSAGES);
        assertThat(http.metric("sockstate.dequeues", "COUNT", "outcome:notified")).isGreaterThan(0);
        assertThat(http.metric("sockstate.dequeue.batch", "COUNT")).isGreaterThan(0);
        assertThat(http.metric("sockstate.dequeue.batch", "TOTAL")).isGreaterThanOrEqualTo(CONNECTIONS * MESSAGES);
        assertThat(http.metric("sockstate.dequeue.wait", "COUNT")).isGreaterThan(0);

        String prometheus = http.get("/actuator/prometheus").body();
        assertThat(prometheusValue(prometheus, "sockstate_connections_accepted_total")).isEqualTo(CONNECTIONS);
        assertThat(prometheusValue(prometheus, "sockstate_data_received_bytes_total"))
                .isEqualTo(CONNECTIONS * MESSAGES * MESSAGE_SIZE);
        assertThat(prometheus).doesNotContain("127.0.0.1").contains("sockstate_notifications_total{")
                .contains("sockstate_dequeue_wait_seconds").contains("sockstate_dequeue_batch_notifications");
        Matcher handled = Pattern.compile("sockstate_handler_seconds_count\\{[^}]*outcome=\"success\"[^}]*} ([0-9]+)").matcher(prometheus);
        assertThat(handled.find()).isTrue();
        assertThat(Integer.parseInt(handled.group(1))).isGreaterThanOrEqualTo(CONNECTIONS * MESSAGES);
        assertThat(prometheus).as("no distribution asked for: count and total only").doesNotContain("sockstate_handler_seconds_bucket")
                .doesNotContain("sockstate_handler_seconds_max");

        String backend = this.backend.name();
        assertThat(prometheus).as("the ports' meters name the backend they count")
                .containsPattern("(?m)^sockstate_dequeues_total\\{[^}]*backend=\"" + backend + "\"")
                .containsPattern("(?m)^sockstate_notifications_total\\{[^}]*backend=\"" + backend + "\"")
                .containsPattern("(?m)^sockstate_registrations_total\\{[^}]*backend=\"" + backend + "\"")
                .doesNotContainPattern("(?m)^sockstate_connections_accepted_total\\{[^}]*backend=");
        Map<String, Object> health = http.json("/actuator/health/sockstate");
        assertThat(health).containsEntry("status", "UP");
        assertThat((Map<String, Object>) health.get("details")).containsEntry("backend", backend);
        HttpResponse<String> readiness = http.get("/actuator/health/readiness");
        assertThat(readiness.statusCode()).isEqualTo(200);
        assertThat(readiness.body()).as("a probe shows no components").isEqualTo("{\"status\":\"UP\"}");
    }

    private static double prometheusValue(String scrape, String series) {
        Matcher matcher = Pattern.compile("(?m)^" + series + "\\{[^}]*listener=\"echo\"[^}]*} ([0-9.eE+]+)$").matcher(scrape);
        assertThat(matcher.find()).as("%s in the scrape", series).isTrue();
        return Double.parseDouble(matcher.group(1));
    }
}
