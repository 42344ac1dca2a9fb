package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The packaged sample, processed by Spring AOT at build time, run as users run it
 * ({@code java -Dspring.aot.enabled=true -jar sample-app.jar}): it starts from the generated
 * initializer (Spring says "AOT-processed") and serves RESP through its handler and custom codec.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AotSampleIT {

    private static final List<String> LISTENERS = List.of("echo", "poll", "udp", "syslog", "syslog-udp");

    @Test
    void theAotProcessedSampleStartsAndServes() throws Exception {
        Path jar = Path.of("target", "sample-app.jar");
        assertThat(jar).exists();
        Path log = Files.createTempFile("aot-sample", ".log");
        int resp = freePort();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dspring.aot.enabled=true", "--enable-native-access=ALL-UNNAMED", "-jar", jar.toString(), "--server.port=0",
                "--management.server.port=0", "--sockstate.workers.threads=2", "--sockstate.listeners.resp.port=" + resp));
        LISTENERS.forEach((listener) -> command.add("--sockstate.listeners." + listener + ".port=0"));
        Process sample = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            String pong = pingWhenUp(resp, sample);
            String output = Files.readString(log);
            assertThat(pong).as(output).isEqualTo("+PONG\r\n");
            assertThat(output).contains("Starting AOT-processed SampleApplication");
        }
        finally {
            sample.destroy();
            assertThat(sample.waitFor(30, TimeUnit.SECONDS)).as("stopped on SIGTERM").isTrue();
            Files.deleteIfExists(log);
        }
    }

    private static String pingWhenUp(int port, Process sample) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline && sample.isAlive()) {
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                client.setSoTimeout(5000);
                client.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                InputStream in = client.getInputStream();
                return new String(in.readNBytes(7), StandardCharsets.US_ASCII);
            }
            catch (IOException notYet) {
                Thread.sleep(200);
            }
        }
        return sample.isAlive() ? "not serving within 90 s" : "exited with " + sample.exitValue();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
