package dev.sockstate.autoconfigure.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ssl.provider} where OpenSSL's engine does not load: an application started in a JVM whose
 * class path leaves Netty out ({@link NativeTlsAbsentApplication}).
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class NativeTlsAbsentTests {

    @Test
    void openSslWhereItDoesNotLoadFailsStartUpWithAnAnalysisNamingThePropertyWhyAndWhatToAdd() throws Exception {
        Run run = runWithoutNetty("openssl");
        assertThat(run.exit).as("the exit; output:%n%s", run.output).isNotZero();
        assertThat(run.output).contains("APPLICATION FAILED TO START")
                .contains("Invalid value 'openssl' for configuration property 'sockstate.listeners.echo.ssl.provider'")
                .contains("OpenSSL's TLS engine does not load here")
                .contains("Add io.netty:netty-handler and io.netty:netty-tcnative-boringssl-static, or choose jdk or auto")
                .doesNotContain("started on");
    }

    @Test
    void autoWhereOpenSslDoesNotLoadStartsOnTheJdksEngineSayingSoOnce() throws Exception {
        Run run = runWithoutNetty("auto");
        assertThat(run.exit).as("the exit; output:%n%s", run.output).isZero();
        assertThat(run.output).containsPattern("started on [1-9][0-9]*");
        assertThat(run.output.split("OpenSSL's TLS engine does not load here", -1)).as("the INFO lines; output:%n%s", run.output)
                .hasSize(2);
    }

    private static Run runWithoutNetty(String provider) throws Exception {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter((entry) -> !Path.of(entry).getFileName().toString().startsWith("netty-"))
                .collect(Collectors.joining(File.pathSeparator));
        Path output = Files.createTempFile("native-tls-absent", ".log");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", classPath, NativeTlsAbsentApplication.class.getName(), provider)
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try {
            child.getOutputStream().close();
            boolean ended = child.waitFor(60, TimeUnit.SECONDS);
            String text = Files.readString(output, StandardCharsets.UTF_8);
            assertThat(ended).as("the JVM without Netty ended; output:%n%s", text).isTrue();
            return new Run(child.exitValue(), text);
        }
        finally {
            child.destroyForcibly();
            Files.deleteIfExists(output);
        }
    }

    private record Run(int exit, String output) {
    }
}
