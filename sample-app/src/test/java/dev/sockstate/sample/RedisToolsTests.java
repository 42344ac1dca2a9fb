package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sockstate.boot.test.LocalListenerPort;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The RESP listener against the standard Redis tools, unmodified. Needs {@code redis-cli} and
 * {@code redis-benchmark} (Debian's redis-tools, which {@code .ci/run} installs): skipped without
 * them on a developer's machine, failed without them in CI (the {@code CI} variable set).
 */
@SpringBootTest(properties = { "management.server.port=0", "server.port=0" })
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@DirtiesContext
class RedisToolsTests {

    @LocalListenerPort("resp")
    private String port;

    @Test
    void redisCliAndRedisBenchmarkWorkAgainstTheRespListener() throws Exception {
        boolean installed = onPath("redis-cli") && onPath("redis-benchmark");
        if (System.getenv("CI") != null) {
            assertThat(installed).as("redis-cli and redis-benchmark on the PATH (CI installs redis-tools)").isTrue();
        }
        assumeTrue(installed, "redis-cli and redis-benchmark are not installed");
        String port = this.port;
        assertThat(run("redis-cli", "-p", port, "ping")).isEqualTo("PONG");
        assertThat(run("redis-cli", "-p", port, "set", "greeting", "hello")).isEqualTo("OK");
        assertThat(run("redis-cli", "-p", port, "get", "greeting")).isEqualTo("hello");
        assertThat(run("redis-cli", "-p", port, "incr", "visits")).isEqualTo("1");
        String benchmark = run("redis-benchmark", "-p", port, "-t", "ping,set,get", "-n", "5000", "-c", "10", "-P", "4", "-q");
        assertThat(benchmark).contains("PING_INLINE").contains("SET").contains("GET").contains("requests per second");
    }

    private static String run(String... command) throws Exception {
        List<String> arguments = new ArrayList<>(List.of(command));
        Process process = new ProcessBuilder(arguments).redirectErrorStream(true).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish within 60 s");
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(process.exitValue()).as("%s: %s", String.join(" ", command), output).isZero();
        return output;
    }

    private static boolean onPath(String tool) {
        for (String directory : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (new File(directory, tool).canExecute()) {
                return true;
            }
        }
        return false;
    }
}
