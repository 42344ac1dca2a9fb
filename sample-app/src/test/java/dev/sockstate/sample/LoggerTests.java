package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The syslog listeners against util-linux's {@code logger}, unmodified: RFC 6587 over TCP with both
 * framings, and UDP. Needs {@code logger} (Debian's bsdutils, which {@code .ci/run} installs):
 * skipped without it on a developer's machine, failed without it in CI (the {@code CI} variable set).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "management.server.port=0")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@DirtiesContext
class LoggerTests {

    @Autowired
    private Environment environment;

    @LocalManagementPort
    private int managementPort;

    @Test
    void loggerOverTcpWithEitherFramingAndOverUdpIsReceivedCountedAndShown() throws Exception {
        RealTools.require("logger");
        String tcp = this.environment.getProperty("local.sockstate.syslog.port");
        String udp = this.environment.getProperty("local.sockstate.syslog-udp.port");
        RealTools.run(null, "logger", "--tcp", "-n", "127.0.0.1", "-P", tcp, "-p", "local3.warning", "-t", "billing", "line framed over tcp");
        RealTools.run(null, "logger", "--tcp", "--octet-count", "-n", "127.0.0.1", "-P", tcp, "-p", "user.err", "-t", "shop", "octet counted over tcp");
        RealTools.run(null, "logger", "-d", "-n", "127.0.0.1", "-P", udp, "--rfc3164", "-p", "daemon.info", "-t", "cron", "a datagram in rfc 3164");
        long deadline = System.currentTimeMillis() + 10_000;
        String latest = get("/actuator/syslog");
        while (!(latest.contains("line framed") && latest.contains("octet counted") && latest.contains("a datagram"))
                && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
            latest = get("/actuator/syslog");
        }
        assertThat(latest).contains(
                "{\"facility\":\"local3\",\"severity\":\"warning\",\"format\":\"RFC5424\"",
                "\"app\":\"billing\",\"text\":\"line framed over tcp\"}",
                "{\"facility\":\"user\",\"severity\":\"err\",\"format\":\"RFC5424\"",
                "\"app\":\"shop\",\"text\":\"octet counted over tcp\"}",
                "{\"facility\":\"daemon\",\"severity\":\"info\",\"format\":\"RFC3164\"",
                "\"app\":\"cron\",\"text\":\"a datagram in rfc 3164\"}");
        String scrape = get("/actuator/prometheus");
        assertThat(scrape).contains("syslog_messages_total{facility=\"local3\",severity=\"warning\"} 1.0")
                .contains("syslog_messages_total{facility=\"user\",severity=\"err\"} 1.0")
                .contains("syslog_messages_total{facility=\"daemon\",severity=\"info\"} 1.0");
    }

    @Test
    void aFrameThatIsNotSyslogClosesOnlyItsConnectionAndIsCounted() throws Exception {
        int tcp = this.environment.getProperty("local.sockstate.syslog.port", Integer.class);
        for (String bad : List.of("hello without a priority\n", "<999>1 - - - - - - out of range\n")) {
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), tcp)) {
                client.setSoTimeout(5000);
                client.getOutputStream().write(bad.getBytes(StandardCharsets.US_ASCII));
                assertThat(readToEnd(client)).as("closed after %s", bad.trim()).isEmpty();
            }
        }
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), tcp)) {
            client.getOutputStream().write("<14>still served\n".getBytes(StandardCharsets.US_ASCII));
        }
        long deadline = System.currentTimeMillis() + 10_000;
        while (!get("/actuator/syslog").contains("still served") && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
        }
        assertThat(get("/actuator/syslog")).contains("\"text\":\"still served\"");
        assertThat(get("/actuator/prometheus")).containsPattern("sockstate_frames_rejected_total\\{[^}]*listener=\"syslog\"[^}]*} 2.0");
    }

    private String get(String path) throws Exception {
        return Management.get(this.managementPort, path);
    }

    private static String readToEnd(Socket client) {
        try {
            return new String(client.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        }
        catch (IOException reset) {
            return "";
        }
    }
}
