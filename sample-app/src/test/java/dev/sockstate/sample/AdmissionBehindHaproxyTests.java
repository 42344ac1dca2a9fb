package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.boot.test.LocalListenerPort;
import java.io.IOException;
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
 * The {@code resp-proxied} listener's admission behind HAProxy ({@code send-proxy} from 127.0.0.3, a
 * trusted proxy): every connection reaches the listener from the balancer's one address, and the rules
 * judge the client each PROXY protocol header names, a client bound to an address of 127.0.0.0/8 of its
 * own. A denied client and one over its cap are closed before a command is read; the balancer itself
 * is no source, and the refusals are counted by reason in Actuator's Prometheus scrape. Needs Debian's
 * haproxy ({@code .ci/run} installs it) and Linux's loopback.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "the balancer and clients bind addresses of 127.0.0.0/8, local on Linux only")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = { "management.server.port=0",
        "sockstate.listeners.resp-proxied.admission.deny=127.0.0.66",
        "sockstate.listeners.resp-proxied.admission.max-connections-per-source=2" })
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@DirtiesContext
class AdmissionBehindHaproxyTests {

    @LocalListenerPort("resp-proxied")
    private int port;

    @LocalManagementPort
    private int managementPort;

    @TempDir
    private Path directory;

    private final List<Socket> clients = new ArrayList<>();

    private Process haproxy;

    @AfterEach
    void stop() throws Exception {
        for (Socket client : this.clients) {
            client.close();
        }
        if (this.haproxy != null) {
            this.haproxy.destroy();
            if (!this.haproxy.waitFor(10, TimeUnit.SECONDS)) {
                this.haproxy.destroyForcibly();
            }
        }
    }

    @Test
    void theRulesJudgeTheClientsHaproxyNamesNotHaproxyItself() throws Exception {
        String haproxy = RealTools.require("haproxy").get(0);
        int frontend = RealTools.freePort();
        Path config = this.directory.resolve("haproxy.cfg");
        Files.writeString(config, String.join("\n", "global", "  maxconn 256", "defaults", "  mode tcp", "  timeout connect 5s",
                "  timeout client 30s", "  timeout server 30s", "frontend resp", "  bind 127.0.0.1:" + frontend, "  default_backend sample",
                "backend sample", "  server sample 127.0.0.1:" + this.port + " send-proxy source 127.0.0.3", ""));
        Path log = this.directory.resolve("haproxy.log");
        this.haproxy = new ProcessBuilder(haproxy, "-db", "-f", config.toString()).redirectErrorStream(true).redirectOutput(log.toFile())
                .start();
        RealTools.awaitListening(this.haproxy, log, frontend);
        double deniedBefore = rejected("denied");
        double limitedBefore = rejected("source-limit");

        assertThat(ping("127.0.0.66", frontend)).as("a denied client").isFalse();
        assertThat(ping("127.0.0.7", frontend)).isTrue();
        assertThat(ping("127.0.0.7", frontend)).isTrue();
        assertThat(ping("127.0.0.7", frontend)).as("a client with two connections open, at its cap").isFalse();
        for (int i = 8; i < 14; i++) {
            assertThat(ping("127.0.0." + i, frontend)).as("client 127.0.0.%d, through the same balancer", i).isTrue();
        }
        assertThat(rejected("denied")).isEqualTo(deniedBefore + 1);
        assertThat(rejected("source-limit")).isEqualTo(limitedBefore + 1);
    }

    /** Sends PING from a client bound to the address, its connection kept open; @return whether PONG came back */
    private boolean ping(String source, int port) throws IOException {
        Socket client = new Socket();
        this.clients.add(client);
        client.bind(new InetSocketAddress(source, 0));
        client.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        client.setSoTimeout(10_000);
        try {
            client.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] reply = client.getInputStream().readNBytes(7);
            return new String(reply, StandardCharsets.US_ASCII).equals("+PONG\r\n");
        }
        catch (SocketException ex) {
            return false;
        }
    }

    private double rejected(String reason) throws Exception {
        String prometheus = Management.get(this.managementPort, "/actuator/prometheus");
        return prometheus.lines().filter((line) -> line.startsWith("sockstate_connections_rejected_total{")
                && line.contains("listener=\"resp-proxied\"") && line.contains("reason=\"" + reason + "\""))
                .mapToDouble((line) -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }
}
