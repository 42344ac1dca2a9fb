package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The packaged sample where JNA's native library cannot load (as in a {@code noexec} temporary
 * directory; here JNA is told neither to unpack its library nor to look for the system's). On JNA
 * (Java 17 to 21, or asked for), the native backend's probe fails, {@code auto} falls back to the
 * portable {@code nio} backend with one WARN line naming the cause, and every listener still serves;
 * on Java 22 and later epoll runs on its FFM binding, which needs nothing of JNA's.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NioFallbackSampleIT {

    @Test
    void withoutJnaTheSampleFallsBackToNioSaysWhyOnceAndServes() throws Exception {
        PackagedSample sample = new PackagedSample("-Djna.nounpack=true", "-Djna.nosys=true", "-Dsockstate.epoll.binding=jna");
        try (sample) {
            int resp = sample.boundPort("resp");
            String output = sample.output();
            assertThat(resp).as(output).isPositive();
            assertThat(output).containsPattern("Listener 'resp' \\([^)]*\\) bound to \\S+ on nio");
            List<String> warnings = output.lines().filter((line) -> line.contains("No native socket notification backend runs on"))
                    .toList();
            assertThat(warnings).as(output).hasSize(1);
            assertThat(warnings.get(0)).contains("WARN", "epoll: ", "Could not find JNA native support", "using the portable nio backend",
                    "sockstate.backend=nio");
            assertPong(resp);
        }
        assertThat(sample.exitValue()).as("stopped on SIGTERM within 30 s").isNotEqualTo(137);
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    @EnabledForJreRange(minVersion = 22)
    void withoutJnaTheSampleRunsOnEpollThroughFfmFromJava22() throws Exception {
        PackagedSample sample = new PackagedSample("-Djna.nounpack=true", "-Djna.nosys=true");
        try (sample) {
            int resp = sample.boundPort("resp");
            String output = sample.output();
            assertThat(resp).as(output).isPositive();
            assertThat(output).containsPattern("Listener 'resp' \\([^)]*\\) bound to \\S+ on epoll")
                    .doesNotContain("No native socket notification backend runs on")
                    .as("the jar's manifest enables native access").doesNotContain("restricted method");
            assertPong(resp);
        }
        assertThat(sample.exitValue()).as("stopped on SIGTERM within 30 s").isNotEqualTo(137);
    }

    /** Sends a RESP PING to the listener's port and expects its PONG. */
    private static void assertPong(int resp) throws Exception {
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), resp)) {
            client.setSoTimeout(5000);
            client.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = client.getInputStream();
            assertThat(new String(in.readNBytes(7), StandardCharsets.US_ASCII)).isEqualTo("+PONG\r\n");
        }
    }
}
