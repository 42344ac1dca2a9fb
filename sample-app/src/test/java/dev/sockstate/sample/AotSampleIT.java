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
 * The packaged sample, processed by Spring AOT at build time, run as users run it
 * ({@code java -Dspring.aot.enabled=true -jar sample-app.jar}): it starts from the generated
 * initializer (Spring says "AOT-processed"), logs the ports its listeners bound, serves RESP through
 * its handler and custom codec, and stops on SIGTERM.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AotSampleIT {

    private static final List<String> LISTENERS = List.of("echo", "poll", "udp", "resp", "resp-tls", "syslog", "syslog-udp");

    @Test
    void theAotProcessedSampleStartsAndServes() throws Exception {
        Path jar = Path.of("target", "sample-app.jar");
        assertThat(jar).exists();
        Path log = Files.createTempFile("aot-sample", ".log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dspring.aot.enabled=true", "--enable-native-access=ALL-UNNAMED", "-jar", jar.toString(), "--server.port=0",
                "--management.server.port=0", "--sockstate.workers.threads=2"));
        LISTENERS.forEach((listener) -> command.add("--sockstate.listeners." + listener + ".port=0"));
        Process sample = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            int resp = boundPort(log, "resp", sample);
            String output = Files.readString(log);
            assertThat(resp).as(output).isPositive();
            assertThat(output).contains("Starting AOT-processed SampleApplication");
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
