package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.boot.test.LocalListenerPort;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The {@code resp-proxy} listener with a password ({@code sample.resp-proxy.password}), in front of a
 * real {@code redis-server} that has none: nothing reaches the server before a client's {@code AUTH},
 * and the standard tools pass the password as they pass Redis' own. Needs redis-server, redis-cli and
 * redis-benchmark: skipped without them on a developer's machine, failed in CI.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "management.server.port=0", "sample.resp-proxy.password=" + RespProxyAuthTests.PASSWORD })
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@DirtiesContext
class RespProxyAuthTests {

    static final String PASSWORD = "open sesame";

    @LocalListenerPort("resp-proxy")
    private String port;

    @DynamicPropertySource
    static void redisAddress(DynamicPropertyRegistry properties) throws Exception {
        String address = RedisServer.shared().address();
        properties.add("sockstate.clients.redis.address", () -> address);
    }

    @Test
    void noRequestReachesTheServerBeforeTheClientGaveThePasswordAndThePasswordIsNeverPassedOn() throws Exception {
        RealTools.require("redis-server", "redis-cli");
        String redisPort = String.valueOf(RedisServer.shared().port());
        RealTools.run(null, "redis-cli", "-p", redisPort, "del", "guarded");
        try (Socket client = new Socket()) {
            client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(this.port)), 5000);
            client.setSoTimeout(10_000);
            BufferedReader replies = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.ISO_8859_1));
            OutputStream requests = client.getOutputStream();
            for (String request : new String[] { "PING\r\n", "*3\r\n$3\r\nSET\r\n$7\r\nguarded\r\n$3\r\nyes\r\n", "KEYS *\r\n" }) {
                requests.write(request.getBytes(StandardCharsets.ISO_8859_1));
                assertThat(replies.readLine()).as(request).isEqualTo("-NOAUTH Authentication required.");
            }
            assertThat(RealTools.output(null, "redis-cli", "-p", redisPort, "exists", "guarded")).as("the server never got the SET")
                    .isEqualTo("0");
            requests.write("AUTH wrong\r\n*3\r\n$4\r\nAUTH\r\n$5\r\nadmin\r\n$11\r\nopen sesame\r\nAUTH\r\n".getBytes(StandardCharsets.ISO_8859_1));
            assertThat(replies.readLine()).isEqualTo("-WRONGPASS invalid username-password pair or user is disabled.");
            assertThat(replies.readLine()).as("only the default user").isEqualTo("-WRONGPASS invalid username-password pair or user is disabled.");
            assertThat(replies.readLine()).isEqualTo("-ERR wrong number of arguments for 'auth' command");
            requests.write("GET guarded\r\n".getBytes(StandardCharsets.ISO_8859_1));
            assertThat(replies.readLine()).isEqualTo("-NOAUTH Authentication required.");
            // The server has no password: had the proxy passed AUTH on, the server would have refused it.
            requests.write("*3\r\n$4\r\nauth\r\n$7\r\ndefault\r\n$11\r\nopen sesame\r\n*3\r\n$3\r\nSET\r\n$7\r\nguarded\r\n$3\r\nyes\r\n"
                    .getBytes(StandardCharsets.ISO_8859_1));
            assertThat(replies.readLine()).isEqualTo("+OK");
            assertThat(replies.readLine()).isEqualTo("+OK");
            assertThat(RealTools.output(null, "redis-cli", "-p", redisPort, "get", "guarded")).isEqualTo("yes");
        }
        try (Socket another = new Socket()) {
            another.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(this.port)), 5000);
            another.setSoTimeout(10_000);
            another.getOutputStream().write("GET guarded\r\n".getBytes(StandardCharsets.ISO_8859_1));
            assertThat(new BufferedReader(new InputStreamReader(another.getInputStream(), StandardCharsets.ISO_8859_1)).readLine())
                    .as("a password given is the connection's, not the proxy's").isEqualTo("-NOAUTH Authentication required.");
        }
    }

    @Test
    void redisCliAndRedisBenchmarkGiveThePasswordAsTheyGiveItToRedis() throws Exception {
        RealTools.require("redis-server", "redis-cli", "redis-benchmark");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!RealTools.output(null, "redis-cli", "-p", this.port, "--no-auth-warning", "-a", PASSWORD, "echo", "up").equals("up")) {
            assertThat(System.nanoTime()).as("the proxy passing ECHO on").isLessThan(deadline);
            Thread.sleep(50);
        }
        assertThat(RealTools.output(null, "redis-cli", "-p", this.port, "ping")).contains("NOAUTH");
        assertThat(RealTools.run(null, "redis-cli", "-p", this.port, "--no-auth-warning", "-a", PASSWORD, "set", "given", "ok"))
                .isEqualTo("OK");
        String benchmark = RealTools.run(null, "redis-benchmark", "-p", this.port, "-a", PASSWORD, "-t", "ping,set,get", "-n", "3000",
                "-c", "10", "-P", "4", "-q");
        assertThat(benchmark).contains("PING_INLINE").contains("SET").contains("GET").contains("requests per second")
                .doesNotContain("ERR").doesNotContain("NOAUTH");
    }
}
