package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.winsock.WinsockBackend;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Out of descriptors (EMFILE): a server in a forked JVM with a low descriptor limit is flooded with
 * connections. It must neither spin on its level-triggered listener nor die, and must serve again
 * once descriptors free up.
 */
@EnabledOnOs(OS.LINUX)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class DescriptorExhaustionTest {

    private static final int DESCRIPTOR_LIMIT = 256;

    private static final int FLOOD = 500;

    @Test
    void theServerBacksOffWhileOutOfDescriptorsAndRecoversAfterwards() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // The server runs on the backend the tests run on.
        String backend = System.getProperty(ServerFixture.BACKEND_PROPERTY, "auto");
        String library = System.getProperty(WinsockBackend.LIBRARY_PROPERTY, "");
        ProcessBuilder builder = new ProcessBuilder("bash", "-c", "ulimit -n " + DESCRIPTOR_LIMIT + " && exec \"$0\" --enable-native-access=ALL-UNNAMED"
                + " -D" + ServerFixture.BACKEND_PROPERTY + "=\"$2\" -D" + WinsockBackend.LIBRARY_PROPERTY + "=\"$3\" -cp \"$1\" "
                + EchoServerMain.class.getName(), java, System.getProperty("java.class.path"), backend, library);
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
        Process server = builder.start();
        List<Socket> flood = new ArrayList<>();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertThat(line).as("the server's first line").startsWith("PORT ");
            int port = Integer.parseInt(line.substring(5).trim());
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
            for (int i = 0; i < FLOOD; i++) {
                Socket client = new Socket();
                flood.add(client);
                client.connect(address, 5000);
            }
            Thread.sleep(500);
            long cpuBefore = cpuMillis(server.pid());
            Thread.sleep(1000);
            long cpuSpent = cpuMillis(server.pid()) - cpuBefore;
            assertThat(server.isAlive()).isTrue();
            assertThat(cpuSpent).as("CPU ms the flooded server used in one second (spinning would be ~1000)").isLessThan(400);
            for (Socket client : flood) {
                client.close();
            }
            flood.clear();
            long deadline = System.currentTimeMillis() + 30_000;
            boolean served = false;
            while (!served && System.currentTimeMillis() < deadline) {
                try (Socket client = new Socket()) {
                    client.connect(address, 5000);
                    client.setSoTimeout(2000);
                    client.getOutputStream().write(42);
                    served = client.getInputStream().read() == 42;
                }
                catch (java.io.IOException ex) {
                    Thread.sleep(100);
                }
            }
            assertThat(served).as("an echo once descriptors are free again").isTrue();
            server.getOutputStream().close();
            assertThat(server.waitFor(20, TimeUnit.SECONDS)).as("the server stops when asked").isTrue();
            assertThat(server.exitValue()).isZero();
            String backoffs = out.readLine();
            assertThat(backoffs).as("the pauses the observer heard of").startsWith("BACKOFFS ");
            assertThat(Long.parseLong(backoffs.substring(9).trim())).isPositive();
        }
        finally {
            for (Socket client : flood) {
                client.close();
            }
            server.destroyForcibly();
        }
    }

    /** @return user plus system CPU time of a process, from {@code /proc/<pid>/stat} */
    private static long cpuMillis(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        return ticks * 10;
    }
}
