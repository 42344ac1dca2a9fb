package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** Every listener of the sample over real sockets, and the metrics they move on the management port. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        // The sample shows health details to authorized users only; this test reads them.
        properties = { "management.server.port=0", "management.endpoint.health.show-details=always" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@DirtiesContext
class SampleApplicationTests {

    /** The redis-server behind the resp-proxy listener: with none, its client's health is DOWN, and the application's. */
    @DynamicPropertySource
    static void redisAddress(DynamicPropertyRegistry properties) throws Exception {
        String address = RedisServer.shared().address();
        properties.add("sockstate.clients.redis.address", () -> address);
    }

    @Autowired
    private Environment environment;

    @LocalManagementPort
    private int managementPort;

    @Autowired
    private DatagramCounter datagramCounter;

    private int port(String listener) {
        return this.environment.getProperty("local.sockstate." + listener + ".port", Integer.class);
    }

    @Test
    void everyListenerServesAndTheMetricsShowIt() throws Exception {
        try (Socket echo = new Socket(InetAddress.getLoopbackAddress(), port("echo"))) {
            echo.setSoTimeout(5000);
            echo.getOutputStream().write("hello\n".getBytes(StandardCharsets.UTF_8));
            assertThat(new String(echo.getInputStream().readNBytes(6), StandardCharsets.UTF_8)).isEqualTo("hello\n");
        }

        try (Socket poll = new Socket(InetAddress.getLoopbackAddress(), port("poll"))) {
            poll.setSoTimeout(5000);
            BufferedReader lines = new BufferedReader(new InputStreamReader(poll.getInputStream(), StandardCharsets.UTF_8));
            poll.getOutputStream().write("12345".getBytes(StandardCharsets.UTF_8));
            assertThat(lines.readLine()).isEqualTo("received 5 bytes");
            poll.getOutputStream().write("678".getBytes(StandardCharsets.UTF_8));
            assertThat(lines.readLine()).isEqualTo("received 8 bytes");
            poll.shutdownOutput();
            assertThat(lines.readLine()).as("closed after the hang-up").isNull();
        }

        try (DatagramSocket udp = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            udp.setSoTimeout(5000);
            InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), port("udp"));
            long before = this.datagramCounter.count();
            for (int i = 1; i <= 3; i++) {
                udp.send(new DatagramPacket(new byte[] { 1 }, 1, target));
                DatagramPacket reply = new DatagramPacket(new byte[16], 16);
                udp.receive(reply);
                assertThat(new String(reply.getData(), 0, reply.getLength(), StandardCharsets.US_ASCII))
                        .isEqualTo(Long.toString(before + i));
            }
        }

        try (Socket resp = new Socket(InetAddress.getLoopbackAddress(), port("resp"))) {
            resp.setSoTimeout(5000);
            resp.getOutputStream().write("PING\r\n*3\r\n$3\r\nSET\r\n$5\r\nmykey\r\n$2\r\n41\r\nINCR mykey\r\n".getBytes(StandardCharsets.UTF_8));
            String expected = "+PONG\r\n+OK\r\n:42\r\n";
            assertThat(new String(resp.getInputStream().readNBytes(expected.length()), StandardCharsets.UTF_8)).isEqualTo(expected);
            resp.getOutputStream().write("*1\r\n$-x\r\n".getBytes(StandardCharsets.UTF_8));
            assertThat(new String(resp.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                    .as("a protocol error, then the close").isEqualTo("-ERR Protocol error: invalid bulk length\r\n");
        }
        try (Socket resp = new Socket(InetAddress.getLoopbackAddress(), port("resp"))) {
            resp.setSoTimeout(5000);
            resp.getOutputStream().write(("PING\r\nGET" + " k".repeat(1100) + "\r\nSET k \"unbalanced\r\nGET k\r\n").getBytes(StandardCharsets.UTF_8));
            assertThat(new String(resp.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                    .as("an inline request Redis refuses as it splits it, refused as Redis words it, then the close")
                    .isEqualTo("+PONG\r\n-ERR Protocol error: too many arguments in inline request\r\n");
        }

        String scrape = get("/actuator/prometheus");
        assertThat(value(scrape, "sockstate_connections_accepted_total", "echo")).isGreaterThanOrEqualTo(1);
        assertThat(value(scrape, "sockstate_connections_accepted_total", "poll")).isGreaterThanOrEqualTo(1);
        assertThat(value(scrape, "sockstate_connections_accepted_total", "resp")).isGreaterThanOrEqualTo(1);
        assertThat(value(scrape, "sockstate_data_received_bytes_total", "udp")).isGreaterThanOrEqualTo(3);
        assertThat(value(scrape, "sockstate_data_received_bytes_total", "echo")).isGreaterThanOrEqualTo(6);
        Management.awaitOk(this.managementPort, "/actuator/health");
        assertThat(get("/actuator/health")).contains("\"sockstate\"").contains("\"UP\"").contains("\"sockstateClients\"");
        assertThat(get("/actuator/sockstate")).contains("\"name\":\"resp\"").contains("\"trigger\":\"edge-persistent\"");
    }

    @Test
    void theEndpointTheHealthAndThePortMetersNameTheBackend() throws Exception {
        String backend = expectedBackend();
        assertThat(get("/actuator/sockstate")).contains("\"backend\":{\"name\":\"" + backend + "\"");
        assertThat(get("/actuator/health/sockstate")).contains("\"backend\":\"" + backend + "\"").contains("\"UP\"");
        assertThat(get("/actuator/prometheus")).containsPattern("(?m)^sockstate_dequeues_total\\{[^}]*backend=\"" + backend + "\"");
    }

    /** @return the backend this run chose: the one the build names (its nio run), else the system's own */
    private static String expectedBackend() {
        String named = System.getProperty("sockstate.backend");
        if (named != null) {
            return named;
        }
        return System.getProperty("os.name").startsWith("Windows") ? "winsock" : "epoll";
    }

    private String get(String path) throws Exception {
        return Management.get(this.managementPort, path);
    }

    private static double value(String scrape, String series, String listener) {
        Matcher matcher = Pattern.compile("(?m)^" + series + "\\{[^}]*listener=\"" + listener + "\"[^}]*} ([0-9.eE+]+)$").matcher(scrape);
        assertThat(matcher.find()).as("%s for %s", series, listener).isTrue();
        return Double.parseDouble(matcher.group(1));
    }
}
