package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.boot.test.LocalListenerPort;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The {@code resp-proxy} listener when its real {@code redis-server} fails: killed and started again,
 * paused ({@code SIGSTOP}), slow ({@code DEBUG SLEEP}), full ({@code maxclients}). What the proxy's own clients see (an error
 * reply naming the proxy, never a hang or another request's reply), what health and the meters say,
 * and that the pool serves again within one backoff once the server does. The server is this class's
 * own, on a port of its own; each test leaves it running. Needs redis-server and redis-cli: skipped
 * without them on a developer's machine, failed in CI.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = { "management.server.port=0",
        "sockstate.clients.redis.request-timeout=1s", "sockstate.clients.redis.reconnect.max=2s" })
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@DirtiesContext
class RespProxyFaultTests {

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
        directory = Files.createTempDirectory("sockstate-redis-faults");
        startRedis();
        properties.add("sockstate.clients.redis.address", () -> "127.0.0.1:" + redisPort);
    }

    @AfterAll
    static void stopRedis() throws Exception {
        if (redis != null) {
            redis.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @BeforeEach
    void proxying() throws Exception {
        if (!redis.isAlive()) {
            startRedis();
        }
        RespProbe.awaitAnswer(this.port, "ECHO up", "$2", 10);
    }

    @Test
    void aServerKilledFailsRequestsAtOnceWithAnErrorAndIsServedAgainWithinABackoffOfItsRestart() throws Exception {
        assertThat(RespProbe.ask(this.port, "SET k v")).isEqualTo("+OK");
        redis.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        long asked = System.nanoTime();
        assertThat(RespProbe.ask(this.port, "GET k")).as("a request while the server is gone").startsWith("-ERR proxy: ");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked)).as("ms until the error came").isLessThan(2_000);
        // PING is the proxy's own, as twemproxy answers it: the proxy is up; the server's state is health's to say.
        assertThat(RespProbe.ask(this.port, "PING")).isEqualTo("+PONG");
        awaitHealth("DOWN");
        startRedis();
        long restarted = System.nanoTime();
        RespProbe.awaitAnswer(this.port, "ECHO up", "$2", 10);
        // The backoff's longest wait is 2 s here, 20% jitter: the pool is back within one of it.
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restarted)).as("ms until the proxy served again").isLessThan(2_400 + 1_000);
        awaitHealth("UP");
        assertThat(RespProbe.ask(this.port, "GET k")).as("the restarted server has no data; no reply of another request").isEqualTo("$-1");
    }

    @Test
    void aPausedServerTimesRequestsOutWithAnErrorAndIsServedAgainOnceItResumes() throws Exception {
        double timedOutBefore = counter("sockstate.client.requests", "client:redis", "outcome:timeout");
        signal("STOP");
        try {
            long asked = System.nanoTime();
            assertThat(RespProbe.ask(this.port, "SET paused 1")).as("a request to a paused server").startsWith("-ERR proxy: ");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked)).as("ms until the error, with a 1 s request timeout")
                    .isBetween(900L, 4_000L);
        }
        finally {
            signal("CONT");
        }
        assertThat(counter("sockstate.client.requests", "client:redis", "outcome:timeout")).isGreaterThan(timedOutBefore);
        RespProbe.awaitAnswer(this.port, "INCR resumed", ":1", 10);
        assertThat(RespProbe.ask(this.port, "INCR resumed")).as("the next reply is this request's").isEqualTo(":2");
    }

    /**
     * A server that stalls again and again for less than the request timeout (each {@code DEBUG SLEEP}
     * holds its one thread) is slow, not failed: every request of four pipelining clients is answered
     * in its turn, none is timed out, and the pool connects to it no more.
     */
    @Test
    void aSlowServerAnswersEveryRequestInItsTurnWithNoTimeoutAndNoReconnect() throws Exception {
        double timedOutBefore = counter("sockstate.client.requests", "client:redis", "outcome:timeout");
        double connectsBefore = counter("sockstate.client.connects", "client:redis");
        Process sleeper = new ProcessBuilder(RealTools.find("redis-cli"), "-p", String.valueOf(redisPort)).redirectErrorStream(true).start();
        sleeper.getOutputStream().write("DEBUG SLEEP 0.3\n".repeat(8).getBytes(StandardCharsets.US_ASCII));
        sleeper.getOutputStream().close();
        long started = System.nanoTime();
        Socket[] clients = new Socket[4];
        try {
            for (int c = 0; c < clients.length; c++) {
                clients[c] = new Socket();
                clients[c].connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.port), 5_000);
                clients[c].setSoTimeout(10_000);
            }
            int rounds = 0;
            // Until the server stalled its eight times (about 2.4 s), 50 pipelined INCRs per client and round, each reply checked.
            while (sleeper.isAlive() && rounds < 200) {
                rounds++;
                for (int c = 0; c < clients.length; c++) {
                    StringBuilder batch = new StringBuilder();
                    for (int i = 0; i < 50; i++) {
                        batch.append("INCR slow:").append(c).append("\r\n");
                    }
                    clients[c].getOutputStream().write(batch.toString().getBytes(StandardCharsets.US_ASCII));
                }
                for (int c = 0; c < clients.length; c++) {
                    BufferedReader replies = new BufferedReader(new InputStreamReader(clients[c].getInputStream(), StandardCharsets.US_ASCII),
                            1);
                    for (int i = 1; i <= 50; i++) {
                        assertThat(replies.readLine()).as("client %d, round %d, request %d", c, rounds, i).isEqualTo(":" + ((rounds - 1) * 50 + i));
                    }
                }
            }
            assertThat(sleeper.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(new String(sleeper.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)).as("the server's stalls")
                    .isEqualTo("OK\n".repeat(8));
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).as("ms the server was slow for").isGreaterThan(2_000);
            assertThat(rounds).as("rounds of requests while it was").isGreaterThan(1);
        }
        finally {
            sleeper.destroyForcibly();
            for (Socket client : clients) {
                if (client != null) {
                    client.close();
                }
            }
        }
        assertThat(counter("sockstate.client.requests", "client:redis", "outcome:timeout")).as("requests timed out").isEqualTo(timedOutBefore);
        assertThat(counter("sockstate.client.connects", "client:redis")).as("connects").isEqualTo(connectsBefore);
    }

    /**
     * A server at its {@code maxclients} accepts, answers an error and closes: the pool's other
     * connection serves the requests, each with its own reply (one that lands on the refused slot as it
     * opens fails, named), and the refused slot connects again at a growing interval, not in a loop.
     */
    @Test
    void aFullServerLeavesThePoolOneConnectionThatAnswersEveryRequestAndIsNotReconnectedToInALoop() throws Exception {
        // Both proxy connections dropped and the server full with one: one slot of the pool gets in, the other is refused.
        String full = RealTools.output("CONFIG SET maxclients 1\nCLIENT KILL TYPE normal SKIPME yes\n", "redis-cli", "-p",
                String.valueOf(redisPort));
        assertThat(full).startsWith("OK");
        try {
            RespProbe.awaitAnswer(this.port, "ECHO up", "$2", 10);
            double connectsBefore = counter("sockstate.client.connects", "client:redis");
            // A request may land on the refused slot in the moment it looks open (connected, its error and close not read yet):
            // it fails, named, or is answered with the server's refusal that came ahead of it (which a reply it is, for
            // all the proxy can tell); no request gets another's reply.
            long last = 0;
            int failed = 0;
            for (int i = 1; i <= 50; i++) {
                String reply = RespProbe.ask(this.port, "INCR counted");
                if (reply.startsWith("-ERR proxy: ") || reply.equals("-ERR max number of clients reached")) {
                    failed++;
                    continue;
                }
                assertThat(reply).startsWith(":");
                long value = Long.parseLong(reply.substring(1));
                // A request that failed as its connection closed may or may not have reached the server.
                assertThat(value).as("reply %d, after %d", i, last).isBetween(last + 1, last + 1 + failed);
                last = value;
            }
            assertThat(failed).as("requests failed on the refused slot").isLessThanOrEqualTo(8);
            Thread.sleep(3_000);
            double connects = counter("sockstate.client.connects", "client:redis") - connectsBefore;
            // Refused at once each time, the slot waits 100 ms, 200, 400, 800, 1,600 (jitter aside): at most 5-6 in 3 s.
            assertThat(connects).as("connects of the refused slot in about 3 s").isLessThanOrEqualTo(8);
        }
        finally {
            redis.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            startRedis();
        }
    }

    /** Waits until health shows the redis client's status, as a probe sees it over HTTP. */
    private void awaitHealth(String status) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Pattern redisStatus = Pattern.compile("\"redis\":\\{\"status\":\"(\\w+)\"");
        String body = null;
        while (System.nanoTime() < deadline) {
            body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.managementPort
                    + "/actuator/health")).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
            Matcher matcher = redisStatus.matcher(body);
            if (matcher.find() && matcher.group(1).equals(status)) {
                return;
            }
            Thread.sleep(50);
        }
        assertThat(body).as("health with the redis client %s", status).contains("\"redis\":{\"status\":\"" + status + "\"");
    }

    private double counter(String meter, String... tags) throws Exception {
        StringBuilder path = new StringBuilder("/actuator/metrics/").append(meter);
        for (int i = 0; i < tags.length; i++) {
            path.append((i == 0) ? '?' : '&').append("tag=").append(tags[i]);
        }
        String body = Management.get(this.managementPort, path.toString());
        Matcher value = Pattern.compile("\"statistic\":\"COUNT\",\"value\":([0-9.E+]+)").matcher(body);
        assertThat(value.find()).as(body).isTrue();
        return Double.parseDouble(value.group(1));
    }

    private static void signal(String signal) throws Exception {
        RealTools.run(null, "kill", "-" + signal, String.valueOf(redis.pid()));
    }

    private static void startRedis() throws Exception {
        redis = new ProcessBuilder(RealTools.find("redis-server"), "--port", String.valueOf(redisPort), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--enable-debug-command", "local", "--dir", directory.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("redis.log").toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!RealTools.output(null, "redis-cli", "-p", String.valueOf(redisPort), "ping").equals("PONG")) {
            assertThat(System.nanoTime()).as("redis-server answering on port %d", redisPort).isLessThan(deadline);
            Thread.sleep(50);
        }
    }
}
