package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.boot.test.LocalListenerPort;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The {@code resp-proxy} listener in front of a real {@code redis-server} that speaks TLS only (the
 * sample's demonstration certificate), paused ({@code SIGSTOP}) so that its system still accepts
 * connections and nothing answers their handshakes: the pool's connects end at the client's
 * handshake timeout, the proxy's clients get an error reply each and never a hang, health says the
 * backend is down, and once the server resumes the pool serves again within one backoff. Needs
 * redis-server and redis-cli built with TLS (Debian's): skipped without the programs on a developer's
 * machine, failed in CI; a redis-server built without TLS fails its start here.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = { "management.server.port=0",
        "sockstate.clients.redis.request-timeout=1s", "sockstate.clients.redis.reconnect.max=2s",
        "sockstate.clients.redis.ssl.bundle=redis-trust", "sockstate.clients.redis.ssl.handshake-timeout=500ms",
        "spring.ssl.bundle.pem.redis-trust.truststore.certificate=classpath:tls/ca.crt" })
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@DirtiesContext
class RespProxyTlsBackendFaultTests {

    private static final Path TLS = Path.of("src", "main", "resources", "tls").toAbsolutePath();

    private static int redisPort;

    private static Process redis;

    private static Path directory;

    @LocalListenerPort("resp-proxy")
    private int port;

    @LocalManagementPort
    private int managementPort;

    @DynamicPropertySource
    static void redisAddress(DynamicPropertyRegistry properties) throws Exception {
        RealTools.require("redis-server", "redis-cli");
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            redisPort = free.getLocalPort();
        }
        directory = Files.createTempDirectory("sockstate-redis-tls");
        redis = new ProcessBuilder(RealTools.find("redis-server"), "--port", "0", "--tls-port", String.valueOf(redisPort), "--bind",
                "127.0.0.1", "--tls-cert-file", TLS.resolve("server.crt").toString(), "--tls-key-file", TLS.resolve("server.key").toString(),
                "--tls-ca-cert-file", TLS.resolve("ca.crt").toString(), "--tls-auth-clients", "no", "--save", "", "--appendonly", "no",
                "--dir", directory.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("redis.log").toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!RealTools.output(null, "redis-cli", "--tls", "--cacert", TLS.resolve("ca.crt").toString(), "-p", String.valueOf(redisPort),
                "ping").equals("PONG")) {
            assertThat(redis.isAlive()).as("redis-server with TLS running; its log: %s", directory.resolve("redis.log")).isTrue();
            assertThat(System.nanoTime()).as("redis-server answering over TLS on port %d", redisPort).isLessThan(deadline);
            Thread.sleep(50);
        }
        properties.add("sockstate.clients.redis.address", () -> "127.0.0.1:" + redisPort);
    }

    @AfterAll
    static void stopRedis() throws Exception {
        if (redis != null) {
            signal("CONT");
            redis.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aServerThatStallsItsHandshakesFailsConnectsAtTheHandshakeTimeoutAndIsServedAgainWithinABackoffOnceItAnswers() throws Exception {
        RespProbe.awaitAnswer(this.port, "SET k v", "+OK", 10);
        signal("STOP");
        try {
            // The pool's two connections each time out a request (1 s) and are closed; their connects then stall in the handshake.
            for (int i = 0; i < 2; i++) {
                long asked = System.nanoTime();
                assertThat(RespProbe.ask(this.port, "GET k")).as("a request to a paused server").startsWith("-ERR proxy: ");
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked)).as("ms until the error").isLessThan(4_000L);
            }
            double stalledBefore = counter("sockstate.client.connects", "client:redis", "outcome:tls");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (counter("sockstate.client.connects", "client:redis", "outcome:tls") < stalledBefore + 2) {
                assertThat(System.nanoTime()).as("two connects ended by the 500 ms handshake timeout").isLessThan(deadline);
                Thread.sleep(50);
            }
            assertThat(health()).as("health with no connection to the server").contains("\"redis\":{\"status\":\"DOWN\"");
            long asked = System.nanoTime();
            assertThat(RespProbe.ask(this.port, "GET k")).as("a request with no connection open").startsWith("-ERR proxy: ").doesNotContain("GET");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked)).as("ms until that error").isLessThan(1_000L);
        }
        finally {
            signal("CONT");
        }
        long resumed = System.nanoTime();
        RespProbe.awaitAnswer(this.port, "ECHO up", "$2", 10);
        // The longest wait is 2 s here (20% jitter), and the connect that was stalled when the server resumed may take the handshake timeout.
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resumed)).as("ms until the proxy served again").isLessThan(2_400 + 500 + 1_000);
        assertThat(RespProbe.ask(this.port, "GET k")).as("each reply its own request's").isEqualTo("$1");
        assertThat(RespProbe.ask(this.port, "INCR counted")).isEqualTo(":1");
        assertThat(RespProbe.ask(this.port, "INCR counted")).isEqualTo(":2");
    }

    private String health() throws Exception {
        return body("/actuator/health");
    }

    /** @return the management port's answer to the path over HTTP, whatever its status (health DOWN is a 503, a meter not made yet a 404) */
    private String body(String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.managementPort + path)).GET()
                .build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private double counter(String meter, String... tags) throws Exception {
        StringBuilder path = new StringBuilder("/actuator/metrics/").append(meter);
        for (int i = 0; i < tags.length; i++) {
            path.append((i == 0) ? '?' : '&').append("tag=").append(tags[i]);
        }
        String body = body(path.toString());
        Matcher value = Pattern.compile("\"statistic\":\"COUNT\",\"value\":([0-9.E+]+)").matcher(body);
        return value.find() ? Double.parseDouble(value.group(1)) : 0;
    }

    private static void signal(String signal) throws Exception {
        RealTools.run(null, "kill", "-" + signal, String.valueOf(redis.pid()));
    }
}
