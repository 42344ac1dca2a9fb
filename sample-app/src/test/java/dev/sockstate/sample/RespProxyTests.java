package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.boot.test.LocalListenerPort;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The {@code resp-proxy} listener in front of a real {@code redis-server} ({@link RedisServer}), reached
 * by the standard Redis tools unmodified. Needs redis-server, redis-cli and redis-benchmark: skipped
 * without them on a developer's machine, failed in CI.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "management.server.port=0")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@DirtiesContext
class RespProxyTests {

    @LocalListenerPort("resp-proxy")
    private String port;

    @LocalManagementPort
    private int managementPort;

    @DynamicPropertySource
    static void redisAddress(DynamicPropertyRegistry properties) throws Exception {
        String address = RedisServer.shared().address();
        properties.add("sockstate.clients.redis.address", () -> address);
    }

    @Test
    void redisCliAndRedisBenchmarkWorkThroughTheProxyAgainstARealRedis() throws Exception {
        RealTools.require("redis-benchmark");
        awaitConnected();
        assertThat(RealTools.run(null, "redis-cli", "-p", this.port, "ping")).isEqualTo("PONG");
        assertThat(RealTools.run(null, "redis-cli", "-p", this.port, "set", "through", "the proxy")).isEqualTo("OK");
        assertThat(RealTools.run(null, "redis-cli", "-p", String.valueOf(RedisServer.shared().port()), "get", "through"))
                .as("the value, read from redis-server directly").isEqualTo("the proxy");
        assertThat(RealTools.run(null, "redis-cli", "-p", this.port, "incrby", "counted", "5")).isEqualTo("5");
        assertThat(RealTools.output(null, "redis-cli", "-p", this.port, "multi")).contains("'MULTI' is not served through this proxy");
        String benchmark = RealTools.run(null, "redis-benchmark", "-p", this.port, "-t", "ping,set,get", "-n", "5000", "-c", "10", "-P",
                "4", "-q");
        assertThat(benchmark).contains("PING_INLINE").contains("SET").contains("GET").contains("requests per second")
                .doesNotContain("ERR");
    }

    @Test
    void requestsThatWouldReachConnectionStateOrTheServersAdministrationAreRefusedHoweverTheyAreSpelled() throws Exception {
        RealTools.require("redis-server");
        awaitConnected();
        try (Socket client = new Socket()) {
            client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(this.port)), 5000);
            client.setSoTimeout(10_000);
            java.io.BufferedReader replies = new java.io.BufferedReader(new java.io.InputStreamReader(client.getInputStream(),
                    StandardCharsets.ISO_8859_1));
            java.io.OutputStream requests = client.getOutputStream();
            // Each as redis-server reads it: MULTI, SELECT, MONITOR, CLIENT LIST, KEYS, FLUSHALL, CONFIG GET.
            for (String sneaky : List.of("\"MULTI\"\r\n", "\u000bSELECT 9\r\n", "MON\"ITOR\"\r\n", "\"CLIENT\" LIST\r\n",
                    "*2\r\n$4\r\nkeys\r\n$1\r\n*\r\n", "FLUSHALL\r\n", "*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$4\r\nsave\r\n",
                    "XREAD BLOCK 0 STREAMS s $\r\n")) {
                requests.write(sneaky.getBytes(StandardCharsets.ISO_8859_1));
                assertThat(replies.readLine()).as(sneaky).startsWith("-ERR '").contains("is not served through this proxy");
            }
            // Not in a transaction, nor in database 9: the next request is answered at once, in database 0.
            requests.write("SET \"a key\" 'a value'\r\n".getBytes(StandardCharsets.ISO_8859_1));
            assertThat(replies.readLine()).isEqualTo("+OK");
            assertThat(RealTools.run(null, "redis-cli", "-p", String.valueOf(RedisServer.shared().port()), "-n", "0", "get", "a key"))
                    .isEqualTo("a value");
            // A length Redis refuses (a leading zero) is refused here, and the connection closed.
            requests.write("*1\r\n$04\r\nPING\r\n".getBytes(StandardCharsets.ISO_8859_1));
            assertThat(replies.readLine()).startsWith("-ERR Protocol error");
        }
    }

    @Test
    void pingIsAnsweredByTheProxyItselfInItsTurnAmongTheRepliesOfRequestsPassedOn() throws Exception {
        RealTools.require("redis-server");
        awaitConnected();
        long pingsBefore = serverPings();
        try (Socket client = new Socket()) {
            client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(this.port)), 5000);
            client.setSoTimeout(10_000);
            java.io.BufferedReader replies = new java.io.BufferedReader(new java.io.InputStreamReader(client.getInputStream(),
                    StandardCharsets.ISO_8859_1));
            client.getOutputStream().write(("*3\r\n$3\r\nSET\r\n$4\r\npung\r\n$1\r\n1\r\nPING\r\n*2\r\n$3\r\nGET\r\n$4\r\npung\r\n"
                    + "*2\r\n$4\r\nping\r\n$5\r\nhello\r\nPING \"a b\"\r\nPING a b\r\n*1\r\n$4\r\nPiNg\r\n").getBytes(StandardCharsets.ISO_8859_1));
            assertThat(replies.readLine()).isEqualTo("+OK");
            assertThat(replies.readLine()).isEqualTo("+PONG");
            assertThat(replies.readLine()).isEqualTo("$1");
            assertThat(replies.readLine()).isEqualTo("1");
            assertThat(replies.readLine()).isEqualTo("$5");
            assertThat(replies.readLine()).isEqualTo("hello");
            assertThat(replies.readLine()).isEqualTo("$3");
            assertThat(replies.readLine()).isEqualTo("a b");
            assertThat(replies.readLine()).isEqualTo("-ERR wrong number of arguments for 'ping' command");
            assertThat(replies.readLine()).isEqualTo("+PONG");
        }
        assertThat(serverPings()).as("PINGs that reached redis-server").isEqualTo(pingsBefore);
    }

    /**
     * More requests pipelined than the proxy lets a client have in flight: those over the limit wait in
     * the proxy, and what the proxy answers itself (PING, a refusal, an inline line Redis refuses) waits
     * behind them, in the client's order.
     */
    @Test
    void repliesTheProxyGivesItselfWaitBehindTheRequestsHeldForAClientThatPipelinesMoreThanItMayHaveInFlight() throws Exception {
        RealTools.require("redis-server");
        awaitConnected();
        RealTools.run(null, "redis-cli", "-p", String.valueOf(RedisServer.shared().port()), "set", "held", "v");
        try (Socket client = new Socket()) {
            client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(this.port)), 5000);
            client.setSoTimeout(10_000);
            StringBuilder requests = new StringBuilder();
            for (int i = 0; i < 300; i++) {
                requests.append("*2\r\n$3\r\nGET\r\n$4\r\nheld\r\n");
            }
            requests.append("PING\r\nMULTI\r\nGET \"held\r\n");
            client.getOutputStream().write(requests.toString().getBytes(StandardCharsets.ISO_8859_1));
            java.io.BufferedReader replies = new java.io.BufferedReader(new java.io.InputStreamReader(client.getInputStream(),
                    StandardCharsets.ISO_8859_1));
            for (int i = 0; i < 300; i++) {
                assertThat(replies.readLine()).as("reply %d", i).isEqualTo("$1");
                assertThat(replies.readLine()).isEqualTo("v");
            }
            assertThat(replies.readLine()).isEqualTo("+PONG");
            assertThat(replies.readLine()).startsWith("-ERR 'MULTI' is not served");
            assertThat(replies.readLine()).isEqualTo("-ERR Protocol error: unbalanced quotes in request");
            assertThat(replies.readLine()).as("closed after the refusal").isNull();
        }
    }

    /**
     * A request the codec refuses, pipelined behind requests passed on: their replies come first, in
     * order, then the refusal, then the close (as Redis answers a pipeline with a malformed request in it).
     */
    @Test
    void aRequestTheCodecRefusesIsAnsweredAfterTheRepliesOwedToTheRequestsBeforeItAndThenTheConnectionCloses() throws Exception {
        RealTools.require("redis-server");
        awaitConnected();
        RealTools.run(null, "redis-cli", "-p", String.valueOf(RedisServer.shared().port()), "set", "owed", "v");
        try (Socket client = new Socket()) {
            client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(this.port)), 5000);
            client.setSoTimeout(10_000);
            StringBuilder requests = new StringBuilder();
            for (int i = 0; i < 100; i++) {
                requests.append("*2\r\n$3\r\nGET\r\n$4\r\nowed\r\n");
            }
            requests.append("*x\r\n");
            client.getOutputStream().write(requests.toString().getBytes(StandardCharsets.ISO_8859_1));
            java.io.BufferedReader replies = new java.io.BufferedReader(new java.io.InputStreamReader(client.getInputStream(),
                    StandardCharsets.ISO_8859_1));
            for (int i = 0; i < 100; i++) {
                assertThat(replies.readLine()).as("reply %d", i).isEqualTo("$1");
                assertThat(replies.readLine()).isEqualTo("v");
            }
            assertThat(replies.readLine()).isEqualTo("-ERR Protocol error: invalid multibulk length");
            assertThat(replies.readLine()).as("closed after the refusal").isNull();
        }
    }

    /** @return how many PINGs redis-server was asked, from its INFO commandstats */
    private static long serverPings() throws Exception {
        String stats = RealTools.run(null, "redis-cli", "-p", String.valueOf(RedisServer.shared().port()), "info", "commandstats");
        Matcher calls = Pattern.compile("cmdstat_ping:calls=(\\d+)").matcher(stats);
        return calls.find() ? Long.parseLong(calls.group(1)) : 0;
    }

    @Test
    void aClientThatDoesNotReadItsRepliesKeepsWhatTheProxyHoldsBoundedWhileRedisBenchmarkRuns() throws Exception {
        RealTools.require("redis-benchmark");
        awaitConnected();
        String big = "x".repeat(64 * 1024);
        RealTools.run(big + "\n", "redis-cli", "-p", String.valueOf(RedisServer.shared().port()), "-x", "set", "big");
        byte[] get = "*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n".getBytes(StandardCharsets.US_ASCII);
        AtomicLong sent = new AtomicLong();
        // Threads of the test's own: the writer blocks for good, which the shared pool's one thread (on 2 cores) must not.
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (Socket slow = new Socket()) {
            slow.setReceiveBufferSize(4096);
            slow.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(this.port)), 5000);
            // A million requests for 64 KiB each (64 GB of replies), never read: the proxy must hold none of that.
            byte[] thousand = new byte[get.length * 1000];
            for (int i = 0; i < 1000; i++) {
                System.arraycopy(get, 0, thousand, i * get.length, get.length);
            }
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    OutputStream out = slow.getOutputStream();
                    for (int i = 0; i < 1000; i++) {
                        out.write(thousand);
                        sent.addAndGet(1000);
                    }
                }
                catch (IOException ex) {
                    // closed at the end of the test
                }
            }, threads);
            CompletableFuture<String> benchmark = CompletableFuture.supplyAsync(() -> {
                try {
                    return RealTools.run(null, "redis-benchmark", "-p", this.port, "-t", "get", "-n", "20000", "-c", "20", "-q");
                }
                catch (Exception ex) {
                    throw new IllegalStateException(ex);
                }
            }, threads);
            long mostPending = 0;
            while (!benchmark.isDone()) {
                mostPending = Math.max(mostPending, pendingBytes());
                Thread.sleep(20);
            }
            assertThat(benchmark.get()).contains("GET").contains("requests per second");
            mostPending = Math.max(mostPending, pendingBytes());
            // The connection's write limit (8 MB) and at most 128 replies in flight (8 MiB).
            assertThat(mostPending).as("bytes the proxy queued for its clients").isLessThan(20L * 1024 * 1024);
            assertThat(sent.get()).as("requests the slow client got to send").isLessThan(1_000_000);
            assertThat(writer).isNotDone();
        }
        finally {
            threads.shutdownNow();
        }
    }

    /** @return the bytes the proxy's listener queues for its clients now, from its meter over HTTP */
    private long pendingBytes() throws Exception {
        String body = Management.get(this.managementPort, "/actuator/metrics/sockstate.data.pending?tag=listener:resp-proxy");
        Matcher value = Pattern.compile("\"value\":([0-9.E+]+)").matcher(body);
        assertThat(value.find()).as(body).isTrue();
        return (long) Double.parseDouble(value.group(1));
    }

    /** Waits until the proxy's client is connected to redis-server. */
    private void awaitConnected() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!RealTools.output(null, "redis-cli", "-p", this.port, "echo", "up").equals("up")) {
            assertThat(System.nanoTime()).as("the proxy passing ECHO on").isLessThan(deadline);
            Thread.sleep(50);
        }
    }
}
