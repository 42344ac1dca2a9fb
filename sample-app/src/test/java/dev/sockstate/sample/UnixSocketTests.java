package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.engine.SocketServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample's echo and syslog-over-UDP listeners moved to Unix domain sockets by configuration
 * alone ({@code address: unix:...}), against real clients: {@code socat} and {@code nc -U} for the
 * stream, util-linux's {@code logger -u} for the datagrams, as a program logs to {@code /dev/log}
 * (not on the nio backend, which has no Unix datagram sockets: the syslog listener stays on UDP there).
 * Skipped without the tools on a developer's machine, failed without them in CI (the {@code CI}
 * variable set).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "management.server.port=0")
@EnabledOnOs(OS.LINUX)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@DirtiesContext
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class UnixSocketTests {

    private static final Path DIRECTORY = directory();

    @Autowired
    private SocketServer server;

    @LocalManagementPort
    private int managementPort;

    @DynamicPropertySource
    static void unixAddresses(DynamicPropertyRegistry registry) {
        registry.add("sockstate.listeners.echo.address", () -> "unix:" + DIRECTORY.resolve("echo.sock"));
        registry.add("sockstate.listeners.echo.unix-permissions", () -> "rw-rw----");
        if (unixDatagrams()) {
            registry.add("sockstate.listeners.syslog-udp.address", () -> "unix:" + DIRECTORY.resolve("log.sock"));
        }
    }

    @AfterAll
    static void removeDirectory() throws Exception {
        try (Stream<Path> left = Files.list(DIRECTORY)) {
            for (Path file : left.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(DIRECTORY);
    }

    @Test
    void socatAndNcAreEchoedOverTheUnixSocket() throws Exception {
        Path echo = DIRECTORY.resolve("echo.sock");
        assertThat(Files.getPosixFilePermissions(echo)).hasSize(4);
        assertThat(run("over socat\n", "socat", "-t", "2", "-", "UNIX-CONNECT:" + echo)).isEqualTo("over socat");
        assertThat(run("over nc\n", "nc", "-N", "-U", echo.toString())).isEqualTo("over nc");
    }

    @Test
    @DisabledIfSystemProperty(named = "sockstate.backend", matches = "nio", disabledReason = "the JDK has no Unix domain datagram"
            + " channel: the nio backend refuses a Unix datagram listener")
    void loggerWritesToTheSyslogDatagramSocketAsToDevLog() throws Exception {
        Path log = DIRECTORY.resolve("log.sock");
        assertThat(run("", "logger", "-u", log.toString(), "--socket-errors=on", "--rfc5424", "-d", "-p", "local1.notice", "-t", "unixapp",
                "a datagram over a unix socket")).isEmpty();
        long deadline = System.currentTimeMillis() + 10_000;
        String latest = Management.get(this.managementPort, "/actuator/syslog");
        while (!latest.contains("a datagram over a unix socket") && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
            latest = Management.get(this.managementPort, "/actuator/syslog");
        }
        assertThat(latest).contains("{\"facility\":\"local1\",\"severity\":\"notice\",\"format\":\"RFC5424\"")
                .contains("\"app\":\"unixapp\",\"text\":\"a datagram over a unix socket\"}");
    }

    @Test
    @Order(Integer.MAX_VALUE)
    void theStopRemovesTheSocketFiles() {
        assertThat(DIRECTORY.resolve("echo.sock")).exists();
        this.server.stop(Duration.ofSeconds(5));
        assertThat(DIRECTORY.resolve("echo.sock")).doesNotExist();
        assertThat(DIRECTORY.resolve("log.sock")).doesNotExist();
    }

    /** @return the tool's output, trimmed, once it exited (any status: the assertions tell) */
    private static String run(String input, String... command) throws Exception {
        RealTools.require(command[0]);
        return RealTools.output(input, command);
    }

    /** @return whether the backend has Unix domain datagram sockets: not the JDK's nio */
    private static boolean unixDatagrams() {
        return !"nio".equals(System.getProperty("sockstate.backend"));
    }

    private static Path directory() {
        try {
            return Files.createTempDirectory("sockstate-unix");
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }
}
