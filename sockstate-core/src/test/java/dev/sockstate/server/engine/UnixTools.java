package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code socat} and {@code nc -U} (netcat-openbsd) as real clients of a Unix domain socket:
 * skipped where they are not installed on a developer's machine, failed in CI (the {@code CI}
 * variable set), which installs them.
 */
final class UnixTools {

    private UnixTools() {
    }

    /** @param tool a program's name, required on the PATH */
    static void require(String tool) {
        boolean installed = List.of(System.getenv().getOrDefault("PATH", "/usr/bin").split(":")).stream()
                .anyMatch((dir) -> Files.isExecutable(Path.of(dir, tool)));
        if (System.getenv("CI") != null) {
            assertThat(installed).as(tool + " on the PATH (CI installs it)").isTrue();
        }
        assumeTrue(installed, tool + " is not installed");
    }

    /**
     * @param input what the tool reads on its standard input
     * @param command the tool and its arguments
     * @return what it wrote, standard error included, once it ended (within 10 s)
     */
    static String run(String input, String... command) throws IOException, InterruptedException {
        require(command[0]);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not end within 10 s");
        }
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
