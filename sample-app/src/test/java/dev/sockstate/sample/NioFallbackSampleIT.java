package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The packaged sample where JNA's native library cannot load (as in a {@code noexec} temporary
 * directory; here JNA is told neither to unpack its library nor to look for the system's): the
 * native backend's probe fails, {@code auto} falls back to the portable {@code nio} backend with
 * one WARN line naming the cause, and every listener still serves.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NioFallbackSampleIT {

    private static final List<String> LISTENERS = List.of("echo", "poll", "udp", "resp", "resp-tls", "syslog", "syslog-udp");

    @Test
    void withoutJnaTheSampleFallsBackToNioSaysWhyOnceAndServes() throws Exception {
        Path jar = Path.of("target", "sample-app.jar");
        assertThat(jar).exists();
        Path log = Files.createTempFile("nio-fallback-sample", ".log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djna.nounpack=true", "-Djna.nosys=true", "-jar", jar.toString(), "--server.port=0",
                "--management.server.port=0", "--sockstate.workers.threads=2"));
        LISTENERS.forEach((listener) -> command.add("--sockstate.listeners." + listener + ".port=0"));
        Process sample = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            int resp = boundPort(log, "resp", sample);
            String output = Files.readString(log);
            assertThat(resp).as(output).isPositive();
            assertThat(output).containsPattern("Listener 'resp' \\([^)]*\\) bound to \\S+ on nio");
            List<String> warnings = output.lines().filter((line) -> line.contains("No native socket notification backend runs on"))
                    .toList();
            assertThat(warnings).as(output).hasSize(1);
            assertThat(warnings.get(0)).contains("WARN", "epoll: ", "Could not find JNA native support", "using the portable nio backend",
                    "sockstate.backend=nio");
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), resp)) {
                client.setSoTimeout(5000);
                client.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                InputStream in = client.getInputStream();
                assertThat(new String(in.readNBytes(7), StandardCharsets.US_ASCII)).isEqualTo("+PONG\r\n");
            }
        }
        finally {
            sample.destroy();
            if (!sample.waitFor(30, TimeUnit.SECONDS)) {
                sample.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            Files.deleteIfExists(log);
        }
        assertThat(sample.exitValue()).as("stopped on SIGTERM within 30 s").isNotEqualTo(137);
    }

    /** @return the port the listener bound, from the log line the application writes as it starts; -1 if it did not */
    private static int boundPort(Path log, String listener, Process sample) throws Exception {
        Pattern started = Pattern.compile("Listener '" + listener + "' \\([^)]*\\) bound to \\S+:(\\d+) on ");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline && sample.isAlive()) {
            Matcher matcher = started.matcher(Files.readString(log));
            if (matcher.find()) {
                return Integer.parseInt(matcher.group(1));
            }
            Thread.sleep(100);
        }
        return -1;
    }
}
