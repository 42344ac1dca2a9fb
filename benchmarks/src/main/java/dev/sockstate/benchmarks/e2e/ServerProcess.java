package dev.sockstate.benchmarks.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** An echo server running as a child JVM: its port, its pid, and a line-based control channel. */
final class ServerProcess implements AutoCloseable {

    private final Process process;

    private final BufferedReader output;

    private final OutputStream control;

    final ServerKind kind;

    final int port;

    /** What the server said of its backend ({@link EchoServer#backend()}), or {@code null}. */
    final String backend;

    private ServerProcess(ServerKind kind, Process process) throws IOException {
        this.kind = kind;
        this.process = process;
        this.output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
        this.control = process.getOutputStream();
        String line = this.output.readLine();
        String backend = null;
        for (int skipped = 0; line != null && !line.startsWith("PORT ") && skipped < 100; skipped++) {
            // the server's backend, a profiler's or the JVM's own messages
            if (line.startsWith("BACKEND ")) {
                backend = line.substring("BACKEND ".length()).trim();
            }
            line = this.output.readLine();
        }
        this.backend = backend;
        if (line == null || !line.startsWith("PORT ")) {
            process.destroyForcibly();
            throw new IllegalStateException(kind.label + " did not start (said " + line + "); see its log");
        }
        this.port = Integer.parseInt(line.substring(5).trim());
    }

    /**
     * Starts a server JVM with the same options for every server, plus those in the environment
     * variable {@code SERVER_JVM_OPTS} (a profiler's, for example); a C anchor runs as its own binary,
     * compiled first if need be ({@link CAnchor}). The environment variable {@code SERVER_CPUS} holds
     * every server to those processors ({@code taskset -c}); the harness, and its client, run where they
     * were started (under {@code taskset} on other processors, for a pinned comparison).
     * @param kind which server
     * @param workers its worker threads
     * @param log where its standard error goes
     * @return the running server
     * @throws IOException when it cannot start
     */
    static ServerProcess start(ServerKind kind, int workers, Path log) throws IOException, InterruptedException {
        String cpus = System.getenv("SERVER_CPUS");
        return start(kind, workers, log, (cpus == null || cpus.isBlank()) ? null : cpus.trim());
    }

    /**
     * As {@link #start(ServerKind, int, Path)}, the server's process held to some processors.
     * @param cpus the processors it may run on, as {@code taskset -c} takes them (such as {@code 0}); {@code null} for any
     */
    static ServerProcess start(ServerKind kind, int workers, Path log, String cpus) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if (cpus != null) {
            command.addAll(List.of("taskset", "-c", cpus));
        }
        if (kind.anchorMode != null) {
            command.addAll(List.of(CAnchor.binary().toString(), kind.anchorMode, Integer.toString(workers)));
            return launch(kind, command, log);
        }
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("-Xms256m", "-Xmx1g", "-XX:+UseG1GC", "--enable-native-access=ALL-UNNAMED",
                "-Dbenchmark.framing=" + System.getProperty("benchmark.framing", "none")));
        String keys = System.getProperty(TlsKeys.PROPERTY);
        if (keys != null) {
            command.add("-D" + TlsKeys.PROPERTY + "=" + keys);
        }
        if (Runtime.version().feature() >= 24) {
            // Netty runs several times slower on Java 24+ without it; the same options go to every server.
            command.add("--sun-misc-unsafe-memory-access=allow");
        }
        String extra = System.getenv("SERVER_JVM_OPTS");
        if (extra != null && !extra.isBlank()) {
            command.addAll(List.of(extra.trim().split("\\s+")));
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ServerMain.class.getName(), kind.label,
                Integer.toString(workers)));
        return launch(kind, command, log);
    }

    private static ServerProcess launch(ServerKind kind, List<String> command, Path log) throws IOException {
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        return new ServerProcess(kind, process);
    }

    /**
     * Adds the server to the servers that gave its backend description, for a results page's head
     * ({@link RunDescription}); a server that gave none (not sockstate) is left out.
     * @param backends each backend description, with the servers that gave it, in the order first seen
     */
    void noteBackend(Map<String, List<String>> backends) {
        if (this.backend != null) {
            List<String> named = backends.computeIfAbsent(this.backend, (description) -> new ArrayList<>());
            if (!named.contains(this.kind.label)) {
                named.add(this.kind.label);
            }
        }
    }

    long pid() {
        return this.process.pid();
    }

    long cpuNanos() {
        return ProcStats.cpuNanos(pid());
    }

    long residentBytes() {
        return ProcStats.residentBytes(pid());
    }

    /** What the server holds after a full collection. */
    record Memory(long heapBytes, long nativeBytes) {

        long total() {
            return this.heapBytes + this.nativeBytes;
        }
    }

    /**
     * Runs a full collection in the server and waits for it.
     * @return the heap in use after it, and the direct and other native memory the server holds
     */
    Memory gc() throws IOException {
        this.control.write("gc\n".getBytes(StandardCharsets.US_ASCII));
        this.control.flush();
        String answer = this.output.readLine();
        String[] parts = (answer != null) ? answer.split(" ") : new String[0];
        if (parts.length != 3 || !parts[0].equals("OK")) {
            throw new IllegalStateException(this.kind.label + " did not answer gc: " + answer);
        }
        return new Memory(Long.parseLong(parts[1]), Long.parseLong(parts[2]));
    }

    @Override
    public void close() throws Exception {
        try {
            this.control.write("stop\n".getBytes(StandardCharsets.US_ASCII));
            this.control.close();
        }
        catch (IOException ex) {
            // gone already
        }
        if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
            this.process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }
}
