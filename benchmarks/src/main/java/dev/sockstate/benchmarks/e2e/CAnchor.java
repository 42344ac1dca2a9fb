package dev.sockstate.benchmarks.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The C anchor ({@code benchmarks/src/main/c/echo_anchor.c}): compiled with {@code gcc -O2} into
 * {@code benchmarks/target/} when a C server kind is asked for and the binary is missing or older than
 * its source, and started as the server process itself (no JVM).
 */
final class CAnchor {

    /** The source, from the repository's root (where {@code benchmarks/run.sh} runs the harness). */
    static final Path SOURCE = Path.of("benchmarks", "src", "main", "c", "echo_anchor.c");

    /** The binary. */
    static final Path BINARY = Path.of("benchmarks", "target", "echo_anchor");

    private CAnchor() {
    }

    /**
     * Compiles the anchor unless its binary is newer than its source.
     * @return the binary, ready to run
     * @throws IOException when the source is missing, gcc is missing, or the compilation fails
     */
    static synchronized Path binary() throws IOException, InterruptedException {
        if (EchoServer.linesFramed()) {
            throw new IllegalStateException("The C anchors echo raw reads; they do not run with --framing line");
        }
        if (!Files.isRegularFile(SOURCE)) {
            throw new IOException("The C anchor's source " + SOURCE.toAbsolutePath() + " is missing: run the harness from the"
                    + " repository's root (benchmarks/run.sh does)");
        }
        return compile(SOURCE, BINARY);
    }

    /**
     * Compiles a C program of the benchmarks unless its binary is newer than its source.
     * @param source its source, from the repository's root
     * @param binary where its binary goes
     * @return the binary, ready to run
     * @throws IOException when gcc is missing or the compilation fails
     */
    static synchronized Path compile(Path source, Path binary) throws IOException, InterruptedException {
        if (!Files.isRegularFile(source)) {
            throw new IOException("The C source " + source.toAbsolutePath() + " is missing: run the harness from the repository's root");
        }
        if (Files.isExecutable(binary)
                && Files.getLastModifiedTime(binary).compareTo(Files.getLastModifiedTime(source)) > 0) {
            return binary;
        }
        Files.createDirectories(binary.getParent());
        List<String> command = List.of("gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread", "-o", binary.toString(),
                source.toString());
        Process gcc;
        try {
            gcc = new ProcessBuilder(command).redirectErrorStream(true).start();
        }
        catch (IOException ex) {
            throw new IOException("The C programs of the benchmarks need gcc on the PATH to compile " + source
                    + "; install gcc (" + ex.getMessage() + ")", ex);
        }
        String output = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!gcc.waitFor(2, TimeUnit.MINUTES) || gcc.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed:\n" + output);
        }
        return binary;
    }
}