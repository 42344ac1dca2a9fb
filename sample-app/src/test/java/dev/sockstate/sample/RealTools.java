package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The programs no one here wrote that the sample's tests talk to: found on the PATH (or in
 * {@code /usr/sbin}, where Debian puts servers), and run to their end. A test that needs one is
 * skipped without it on a developer's machine, and fails without it in CI (the {@code CI} variable set),
 * which installs them ({@code .ci/run}).
 */
final class RealTools {

    private RealTools() {
    }

    /**
     * @param tools the commands a test needs
     * @return the path of each, in order
     */
    static List<String> require(String... tools) {
        List<String> found = new ArrayList<>();
        for (String tool : tools) {
            String path = find(tool);
            if (System.getenv("CI") != null) {
                assertThat(path).as("%s on the PATH (CI installs it)", tool).isNotNull();
            }
            assumeTrue(path != null, tool + " is not installed");
            found.add(path);
        }
        return found;
    }

    /** @return the tool's path, {@code null} when it is nowhere */
    static String find(String tool) {
        List<String> directories = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        directories.add("/usr/sbin");
        directories.add("/sbin");
        for (String directory : directories) {
            File candidate = new File(directory, tool);
            if (candidate.canExecute()) {
                return candidate.getPath();
            }
        }
        return null;
    }

    /**
     * @param input what the command reads on its standard input, {@code null} for nothing
     * @param command the command and its arguments
     * @return its output (standard output and error), after it exited with 0
     */
    static String run(String input, String... command) throws Exception {
        Process process = start(input, command);
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(process.exitValue()).as("%s: %s", String.join(" ", command), output).isZero();
        return output;
    }

    /**
     * @param input what the command reads on its standard input, {@code null} for nothing
     * @param command the command and its arguments
     * @return its output (standard output and error), after it exited, with whatever status
     */
    static String output(String input, String... command) throws Exception {
        return new String(start(input, command).getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    }

    private static Process start(String input, String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (input != null) {
            process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        }
        process.getOutputStream().close();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish within 60 s");
        }
        return process;
    }

    /** @return a loopback port no one listens on now, for a balancer's front to bind */
    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /**
     * Waits until a program listens on each port, within 20 s, failing with its output if it ended first.
     * @param process the program
     * @param log where its output goes
     * @param ports its ports
     */
    static void awaitListening(Process process, Path log, int... ports) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (int port : ports) {
            while (!accepts(port)) {
                assertThat(process.isAlive()).as("%s is running; its output:%n%s", process.info().command().orElse("the program"),
                        Files.readString(log)).isTrue();
                assertThat(System.nanoTime() - deadline).as("a program listening on %d", port).isNegative();
                Thread.sleep(50);
            }
        }
    }

    private static boolean accepts(int port) {
        try (Socket probe = new Socket()) {
            probe.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
            return true;
        }
        catch (IOException ex) {
            return false;
        }
    }
}
