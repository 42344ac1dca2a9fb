package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.boot.test.LocalListenerPort;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The {@code resp-proxied} listener behind real load balancers no one here wrote: HAProxy sending the
 * PROXY protocol's version 1 ({@code send-proxy}) and version 2 ({@code send-proxy-v2}) from
 * 127.0.0.3, and nginx's stream module ({@code proxy_protocol on}) from 127.0.0.4, the listener's
 * trusted proxies. {@code redis-cli} and {@code redis-benchmark} run through them unmodified, and
 * {@code CLIENT INFO} shows the address the client connected from (a client bound to 127.0.0.5, so
 * that it differs from the balancer's), not the balancer's. A peer outside the trusted proxies is
 * served as itself and may not send a header; a trusted one's bad header closes its connection, and
 * each outcome is counted in {@code sockstate.proxy.headers} (read over Actuator's HTTP). Needs
 * Debian's haproxy, nginx with libnginx-mod-stream, and redis-tools ({@code .ci/run} installs them), and
 * Linux's loopback, where every address of 127.0.0.0/8 is local (macOS's has 127.0.0.1 alone unless
 * aliased, and Windows runs no HAProxy).
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "the balancers and clients bind 127.0.0.3 to 127.0.0.5, local on Linux only")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "management.server.port=0")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@DirtiesContext
class ProxyProtocolTests {

    private static final String NGINX_STREAM_MODULE = "/usr/lib/nginx/modules/ngx_stream_module.so";

    @LocalListenerPort("resp-proxied")
    private int port;

    @LocalManagementPort
    private int managementPort;

    @TempDir
    private Path directory;

    private final List<Process> balancers = new ArrayList<>();

    @AfterEach
    void stopBalancers() throws InterruptedException {
        for (Process balancer : this.balancers) {
            balancer.destroy();
            if (!balancer.waitFor(10, TimeUnit.SECONDS)) {
                balancer.destroyForcibly();
            }
        }
    }

    @Test
    void behindHaproxyEitherVersionTheListenerSeesTheClientAndRedisToolsWork() throws Exception {
        String haproxy = RealTools.require("haproxy", "redis-cli", "redis-benchmark").get(0);
        int v1 = RealTools.freePort();
        int v2 = RealTools.freePort();
        Path config = this.directory.resolve("haproxy.cfg");
        Files.writeString(config, String.join("\n", "global", "  maxconn 256", "defaults", "  mode tcp", "  timeout connect 5s",
                "  timeout client 30s", "  timeout server 30s",
                "frontend v1", "  bind 127.0.0.1:" + v1, "  default_backend resp-v1",
                "frontend v2", "  bind 127.0.0.1:" + v2, "  default_backend resp-v2",
                "backend resp-v1", "  server sample 127.0.0.1:" + this.port + " send-proxy source 127.0.0.3",
                "backend resp-v2", "  server sample 127.0.0.1:" + this.port + " send-proxy-v2 source 127.0.0.3", ""));
        start(List.of(haproxy, "-db", "-f", config.toString()), v1, v2);
        for (int frontend : new int[] { v1, v2 }) {
            assertThat(clientInfoFrom("127.0.0.5", frontend)).as("through port %d", frontend).matches(seenAs("127.0.0.5", "127.0.0.3"));
            String info = RealTools.run(null, "redis-cli", "-h", "127.0.0.1", "-p", String.valueOf(frontend), "client", "info");
            assertThat(info).matches("id=\\d+ addr=127\\.0\\.0\\.1:\\d+ laddr=127\\.0\\.0\\.1:" + this.port + " proxy=127\\.0\\.0\\.3:\\d+");
            assertThat(RealTools.run(null, "redis-cli", "-p", String.valueOf(frontend), "set", "via", "haproxy")).isEqualTo("OK");
            assertThat(RealTools.run(null, "redis-cli", "-p", String.valueOf(frontend), "get", "via")).isEqualTo("haproxy");
            String benchmark = RealTools.run(null, "redis-benchmark", "-p", String.valueOf(frontend), "-t", "ping,set,get", "-n", "2000",
                    "-c", "10", "-P", "4", "-q");
            assertThat(benchmark).contains("PING_INLINE").contains("SET").contains("GET").contains("requests per second");
        }
        assertThat(counted("accepted")).isGreaterThanOrEqualTo(2 + 2 + 4 + 3 * 10);
    }

    @Test
    void behindNginxsStreamModuleTheListenerSeesTheClient() throws Exception {
        String nginx = RealTools.require("nginx", "redis-cli").get(0);
        assertThat(Path.of(NGINX_STREAM_MODULE)).as("nginx's stream module (libnginx-mod-stream)").exists();
        int frontend = RealTools.freePort();
        Path config = this.directory.resolve("nginx.conf");
        Files.writeString(config, String.join("\n", "load_module " + NGINX_STREAM_MODULE + ";", "daemon off;", "worker_processes 1;",
                "pid " + this.directory.resolve("nginx.pid") + ";", "error_log " + this.directory.resolve("error.log") + " info;",
                "events { worker_connections 64; }",
                "stream {", "  server {", "    listen 127.0.0.1:" + frontend + ";", "    proxy_pass 127.0.0.1:" + this.port + ";",
                "    proxy_protocol on;", "    proxy_bind 127.0.0.4;", "  }", "}", ""));
        start(List.of(nginx, "-e", this.directory.resolve("error.log").toString(), "-p", this.directory.toString(), "-c",
                config.toString()), frontend);
        assertThat(clientInfoFrom("127.0.0.5", frontend)).matches(seenAs("127.0.0.5", "127.0.0.4"));
        assertThat(RealTools.run(null, "redis-cli", "-p", String.valueOf(frontend), "ping")).isEqualTo("PONG");
    }

    @Test
    void aDirectClientIsServedAsItselfAndBadHeadersCloseTheirConnectionsCounted() throws Exception {
        assertThat(clientInfoFrom("127.0.0.5", this.port)).as("a peer outside the trusted proxies, served directly")
                .matches("id=\\d+ addr=127\\.0\\.0\\.5:\\d+ laddr=127\\.0\\.0\\.1:" + this.port + " proxy=none");
        double untrusted = counted("untrusted");
        double malformed = counted("malformed");
        assertThat(sendAndRead("127.0.0.5", "PROXY TCP4 192.0.2.7 127.0.0.1 51000 6381\r\nCLIENT INFO\r\n"))
                .as("a header from a peer outside the trusted proxies").isEmpty();
        assertThat(sendAndRead("127.0.0.3", "PROXY TCP4 192.0.2.7 127.0.0.1 51000 99999\r\nCLIENT INFO\r\n"))
                .as("a header whose port is out of range, from a trusted proxy").isEmpty();
        assertThat(sendAndRead("127.0.0.3", "CLIENT INFO\r\n")).as("no header from a trusted proxy").isEmpty();
        assertThat(counted("untrusted")).isEqualTo(untrusted + 1);
        assertThat(counted("malformed")).isEqualTo(malformed + 2);
    }

    /** @return a pattern of CLIENT INFO's answer for a client and the balancer it came through */
    private String seenAs(String client, String balancer) {
        return "id=\\d+ addr=" + client.replace(".", "\\.") + ":\\d+ laddr=127\\.0\\.0\\.1:" + this.port + " proxy="
                + balancer.replace(".", "\\.") + ":\\d+";
    }

    /** Sends CLIENT INFO from a socket bound to the address; @return the answer, its client port checked */
    private static String clientInfoFrom(String source, int port) throws IOException {
        try (Socket client = new Socket()) {
            client.bind(new InetSocketAddress(source, 0));
            client.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            client.setSoTimeout(10_000);
            client.getOutputStream().write("CLIENT INFO\r\n".getBytes(StandardCharsets.US_ASCII));
            String reply = readBulk(client.getInputStream());
            assertThat(reply).contains("addr=" + source + ":" + client.getLocalPort() + " ");
            return reply;
        }
    }

    /** @return what the server answered before closing, empty when it closed without a word */
    private String sendAndRead(String source, String bytes) throws IOException {
        try (Socket client = new Socket()) {
            client.bind(new InetSocketAddress(source, 0));
            client.connect(new InetSocketAddress("127.0.0.1", this.port), 5000);
            client.setSoTimeout(10_000);
            client.getOutputStream().write(bytes.getBytes(StandardCharsets.US_ASCII));
            try {
                return new String(client.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            }
            catch (SocketException ex) {
                // reset: closed without a word
                return "";
            }
        }
    }

    /** @return a bulk string reply's text: {@code $<length>\r\n<text>\r\n} */
    private static String readBulk(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) != '\n') {
            assertThat(b).as("the reply's first line").isNotNegative();
            line.append((char) b);
        }
        assertThat(line.charAt(0)).as("a bulk string reply: %s", line).isEqualTo('$');
        int length = Integer.parseInt(line.substring(1).trim());
        byte[] text = in.readNBytes(length + 2);
        return new String(text, 0, length, StandardCharsets.US_ASCII).trim();
    }

    private double counted(String outcome) throws Exception {
        String reason = outcome.equals("accepted") ? "none" : outcome;
        String prometheus = Management.get(this.managementPort, "/actuator/prometheus");
        return prometheus.lines().filter((line) -> line.startsWith("sockstate_proxy_headers_total{")
                && line.contains("listener=\"resp-proxied\"") && line.contains("reason=\"" + reason + "\""))
                .mapToDouble((line) -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    /** Starts a balancer and waits until each of its ports accepts connections. */
    private void start(List<String> command, int... ports) throws Exception {
        Path log = this.directory.resolve("balancer-" + this.balancers.size() + ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        this.balancers.add(process);
        RealTools.awaitListening(process, log, ports);
    }
}
