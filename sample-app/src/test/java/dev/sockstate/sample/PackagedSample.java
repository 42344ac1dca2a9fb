package dev.sockstate.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The packaged sample run as users run it, {@code java [options] -jar target/sample-app.jar}, on
 * ports of its own (every listener, the web and the management server on port 0, two workers), its
 * output kept in a file for the test to read; stopped with SIGTERM.
 */
final class PackagedSample implements AutoCloseable {

    private static final List<String> LISTENERS = List.of("echo", "poll", "udp", "resp", "resp-tls", "resp-proxied", "resp-proxy", "syslog", "syslog-udp");

    private final Path log;

    private final Process process;

    private int exitValue = -1;

    /**
     * @param jvmOptions options before {@code -jar}
     * @throws Exception when the jar is missing or the process cannot start
     */
    PackagedSample(String... jvmOptions) throws Exception {
        this(List.of(jvmOptions), Map.of());
    }

    /**
     * @param jvmOptions options before {@code -jar}
     * @param properties properties given as {@code --name=value} arguments, in place of the defaults
     * above for the same names (a fixed port for a listener, say)
     * @throws Exception when the jar is missing or the process cannot start
     */
    PackagedSample(List<String> jvmOptions, Map<String, String> properties) throws Exception {
        Path jar = Path.of("target", "sample-app.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar.toAbsolutePath() + " is missing: package the sample first");
        }
        this.log = Files.createTempFile("packaged-sample", ".log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toString()));
        Map<String, String> arguments = new LinkedHashMap<>();
        arguments.put("server.port", "0");
        arguments.put("management.server.port", "0");
        arguments.put("sockstate.workers.threads", "2");
        LISTENERS.forEach((listener) -> arguments.put("sockstate.listeners." + listener + ".port", "0"));
        arguments.putAll(properties);
        arguments.forEach((name, value) -> command.add("--" + name + "=" + value));
        this.process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(this.log.toFile()).start();
    }

    /** @return the port the listener bound, from the line the application logs as it starts; -1 if it did not within 90 s */
    int boundPort(String listener) throws Exception {
        Pattern started = Pattern.compile("Listener '" + listener + "' \\([^)]*\\) bound to \\S+:(\\d+) on ");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline && this.process.isAlive()) {
            Matcher matcher = started.matcher(output());
            if (matcher.find()) {
                return Integer.parseInt(matcher.group(1));
            }
            Thread.sleep(100);
        }
        return -1;
    }

    /** @return what the application wrote so far */
    String output() throws Exception {
        return Files.readString(this.log);
    }

    /** @return the exit value once {@link #close()} stopped it; 137 when it had to be killed */
    int exitValue() {
        return this.exitValue;
    }

    /** Stops it with SIGTERM, killing it after 30 s, and deletes its log. */
    @Override
    public void close() throws Exception {
        this.process.destroy();
        if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
            this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        this.exitValue = this.process.exitValue();
        Files.deleteIfExists(this.log);
    }
}
