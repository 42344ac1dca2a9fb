package dev.sockstate.benchmarks.e2e;

import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLSocket;

/**
 * The TLS comparison: sockstate's TLS listener through the starter against Netty's
 * {@code SslHandler} on its native epoll transport, each on the JDK's engine and on OpenSSL's
 * (netty-tcnative's BoringSSL), one EC P-256 certificate, each in a JVM of its own, driven by one
 * client ({@link TlsLoad}), rounds rotated. Each server is warmed up first (echo, full and resumed
 * handshakes at once, 15 s unless told), so that what is timed is compiled code. Four measures: TLS 1.3 echo of
 * 1 KiB on 64 connections (messages/s, server CPU per message); connect, full handshake, one 1 KiB
 * echo and close from 4 threads (connections/s, server CPU per connection); the same with the
 * handshake resumed (each thread offering the ticket of its last connection; the share that resumed is
 * reported); memory per idle TLS connection (each handshaken and echoed once, then held). Usage
 * (see {@code benchmarks/run-tls.sh}): {@code TlsComparison [--rounds n] [--workers n] [--measure ms] [--warm-up ms] [--idle n]
 * [--out dir] [--results dir] [--histogram]}; {@code --histogram} saves each server's live-object histogram while the idle connections
 * are held; {@code --results dir} also writes the run to a directory meant to be committed, as the echo comparison's
 * option does ({@link ResultsDirectory}), with every round's figures in {@code samples.csv} and the charts of
 * {@link Charts#tls}.
 */
public final class TlsComparison {

    private static final List<ServerKind> SERVERS = List.of(ServerKind.SOCKSTATE_TLS, ServerKind.NETTY_TLS, ServerKind.SOCKSTATE_TLS_OPENSSL,
            ServerKind.NETTY_TLS_OPENSSL);

    private static final int ECHO_CONNECTIONS = 64;

    private static final int MESSAGE = 1024;

    private static final int HANDSHAKE_THREADS = 4;

    private TlsComparison() {
    }

    /** One server's figures in one round. */
    record Figures(double messagesPerSecond, double cpuMicrosPerMessage, double connectionsPerSecond, double cpuMicrosPerConnection,
            double resumedPerSecond, double cpuMicrosPerResumed, double resumedShare, double heapPerIdle, double nativePerIdle,
            double residentPerIdle) {
    }

    /**
     * @param args the options
     * @throws Exception when a server or the load fails
     */
    public static void main(String[] args) throws Exception {
        int rounds = 3;
        int workers = Runtime.getRuntime().availableProcessors();
        long measure = 5000;
        long warmUp = 15_000;
        int idle = 2000;
        boolean histogram = false;
        Path results = null;
        Path out = Path.of("benchmarks", "target", "tls", LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        for (int i = 0; i < args.length; i += 2) {
            String value = (i + 1 < args.length) ? args[i + 1] : null;
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(value);
                case "--workers" -> workers = Integer.parseInt(value);
                case "--measure" -> measure = Long.parseLong(value);
                case "--warm-up" -> warmUp = Long.parseLong(value);
                case "--idle" -> idle = Integer.parseInt(value);
                case "--out" -> out = Path.of(value);
                case "--results" -> results = Path.of(value);
                case "--histogram" -> {
                    histogram = true;
                    i--;
                }
                default -> throw new IllegalArgumentException("Unknown option " + args[i]
                        + "; use --rounds n, --workers n, --measure ms, --warm-up ms, --idle n, --out dir, --results dir, --histogram");
            }
        }
        Files.createDirectories(out);
        System.setProperty(TlsKeys.PROPERTY, TlsKeys.make(out.resolve("keys")).toString());
        LocalDate day = ResultsDirectory.day(Instant.now());
        Map<String, List<String>> backends = new LinkedHashMap<>();
        Map<ServerKind, List<Figures>> figures = new EnumMap<>(ServerKind.class);
        StringBuilder samples = new StringBuilder(SAMPLES_HEAD);
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < SERVERS.size(); i++) {
                ServerKind kind = SERVERS.get((i + round) % SERVERS.size());
                Path histogramFile = histogram ? out.resolve(kind.label + "-idle-histogram-" + (round + 1) + ".txt") : null;
                Figures measured = measure(kind, workers, measure, warmUp, idle, out.resolve(kind.label + ".log"), histogramFile, backends);
                figures.computeIfAbsent(kind, (k) -> new ArrayList<>()).add(measured);
                samples.append(sample(round + 1, kind, measured));
                System.err.printf(Locale.ROOT, "round %d %s: %s%n", round + 1, kind.label, measured);
            }
        }
        String report = report(figures, rounds, workers, measure, warmUp, idle);
        Files.writeString(out.resolve("report.md"), report, StandardCharsets.UTF_8);
        Files.writeString(out.resolve("samples.csv"), samples, StandardCharsets.UTF_8);
        System.out.print(report);
        if (results != null) {
            RunDescription run = RunDescription.here(List.of(args), backends, day,
                    ResultsDirectory.commit(System.getenv("COMMIT"), ResultsDirectory::git));
            Path written = ResultsDirectory.write(results, "TLS comparison", run, report, out.resolve("samples.csv"), Charts.tls(SERVERS, figures));
            System.err.println("Results to commit in " + written);
        }
    }

    /** The head of {@code samples.csv}: a line per server and round. */
    private static final String SAMPLES_HEAD = "round,server,echo_messages_per_s,echo_cpu_us_per_message,connections_per_s,"
            + "cpu_us_per_connection,resumed_per_s,cpu_us_per_resumed,resumed_share,idle_heap_bytes_per_connection,"
            + "idle_native_bytes_per_connection,idle_rss_bytes_per_connection\n";

    private static String sample(int round, ServerKind kind, Figures f) {
        return String.format(Locale.ROOT, "%d,%s,%.1f,%.3f,%.1f,%.1f,%.1f,%.1f,%.3f,%.1f,%.1f,%.1f%n", round, kind.label,
                f.messagesPerSecond(), f.cpuMicrosPerMessage(), f.connectionsPerSecond(), f.cpuMicrosPerConnection(),
                f.resumedPerSecond(), f.cpuMicrosPerResumed(), f.resumedShare(), f.heapPerIdle(), f.nativePerIdle(), f.residentPerIdle());
    }

    private static Figures measure(ServerKind kind, int workers, long measure, long warmUp, int idle, Path log, Path histogram,
            Map<String, List<String>> backends) throws Exception {
        try (ServerProcess server = ServerProcess.start(kind, workers, log)) {
            server.noteBackend(backends);
            TlsLoad load = new TlsLoad(server.port);
            byte[] message = new byte[MESSAGE];
            Arrays.fill(message, (byte) 'x');
            // Warm-up: echo, full and resumed handshakes at once, so that the server's JIT compiled the records' and
            // both handshakes' paths (the AES-GCM intrinsics among them) before anything is timed.
            warm(load, message, warmUp, server);
            // Echo: 64 connections, one message in flight on each.
            long[] echo = window(ECHO_CONNECTIONS, echoes(load, message), server, measure);
            // Connections: connect, full handshake, one echo, close.
            long[] connections = window(HANDSHAKE_THREADS, fullHandshakes(load, message), server, measure);
            // Resumed: each thread connects to its own host name again, offering the session (ticket) of its last
            // connection: connect, resumed handshake, one echo, close. A connection that was not resumed is counted apart.
            AtomicLong fresh = new AtomicLong();
            long[] resumed = window(HANDSHAKE_THREADS, resumedHandshakes(load, message, fresh), server, measure);
            double resumedShare = 1 - (double) fresh.get() / Math.max(1, resumed[2]);
            // Idle: handshaken, echoed once, held.
            ServerProcess.Memory before = server.gc();
            long residentBefore = server.residentBytes();
            List<Socket> held = new ArrayList<>(idle);
            try {
                byte[] into = new byte[MESSAGE];
                for (int i = 0; i < idle; i++) {
                    SSLSocket socket = load.connect();
                    held.add(socket);
                    TlsLoad.echo(socket, message, into);
                }
                Thread.sleep(1000);
                ServerProcess.Memory after = server.gc();
                long residentAfter = server.residentBytes();
                if (histogram != null) {
                    // What the server's heap holds with the idle connections, by class: jcmd's live-object histogram.
                    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
                    new ProcessBuilder(jcmd, Long.toString(server.pid()), "GC.class_histogram").redirectOutput(histogram.toFile())
                            .redirectErrorStream(true).start().waitFor();
                }
                return new Figures(echo[0] * 1000.0 / measure, echo[1] / 1000.0 / Math.max(1, echo[0]),
                        connections[0] * 1000.0 / measure, connections[1] / 1000.0 / Math.max(1, connections[0]),
                        resumed[0] * 1000.0 / measure, resumed[1] / 1000.0 / Math.max(1, resumed[0]), resumedShare,
                        (double) (after.heapBytes() - before.heapBytes()) / idle,
                        (double) (after.nativeBytes() - before.nativeBytes()) / idle, (double) (residentAfter - residentBefore) / idle);
            }
            finally {
                for (Socket socket : held) {
                    socket.close();
                }
            }
        }
    }

    /** @return loops that each echo the message on a connection of their own, one message in flight */
    private static TlsLoad.LoopBody echoes(TlsLoad load, byte[] message) {
        return (index) -> {
            SSLSocket socket = load.connect();
            byte[] into = new byte[MESSAGE];
            return new TlsLoad.LoopState() {

                @Override
                public void once() throws Exception {
                    TlsLoad.echo(socket, message, into);
                }

                @Override
                public void close() throws Exception {
                    socket.close();
                }
            };
        };
    }

    /** @return loops that each connect, make a full handshake, echo the message once and close, again and again */
    private static TlsLoad.LoopBody fullHandshakes(TlsLoad load, byte[] message) {
        return (index) -> {
            byte[] into = new byte[MESSAGE];
            return () -> {
                try (Socket socket = load.connect()) {
                    TlsLoad.echo(socket, message, into);
                }
            };
        };
    }

    /**
     * @param fresh counts the connections that were not resumed (a thread's first, and any the server did not resume)
     * @return loops that each connect to a host name of their own again and again, offering the session (ticket) of
     *     their last connection: connect, resumed handshake, one echo, close
     */
    private static TlsLoad.LoopBody resumedHandshakes(TlsLoad load, byte[] message, AtomicLong fresh) {
        return (index) -> {
            byte[] into = new byte[MESSAGE];
            String host = "resume-" + index + "-" + System.nanoTime();
            long[] created = {-1};
            return () -> {
                try (SSLSocket socket = load.connect(host)) {
                    TlsLoad.echo(socket, message, into);
                    long creation = socket.getSession().getCreationTime();
                    if (creation != created[0]) {
                        fresh.incrementAndGet();
                        created[0] = creation;
                    }
                }
            };
        };
    }

    /** Echo on 16 connections, full handshakes from 4 threads and resumed ones from 4 more, all at once, for {@code warmUp} ms. */
    private static void warm(TlsLoad load, byte[] message, long warmUp, ServerProcess server) throws Exception {
        if (warmUp <= 0) {
            return;
        }
        AtomicLong counted = new AtomicLong();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> loops = new ArrayList<>(TlsLoad.loops(16, echoes(load, message), counted, running, failure));
        loops.addAll(TlsLoad.loops(HANDSHAKE_THREADS, fullHandshakes(load, message), counted, running, failure));
        loops.addAll(TlsLoad.loops(HANDSHAKE_THREADS, resumedHandshakes(load, message, new AtomicLong()), counted, running, failure));
        try {
            Thread.sleep(warmUp);
            if (failure.get() != null) {
                throw new IllegalStateException("The warm-up against " + server.kind.label + " failed", failure.get());
            }
        }
        finally {
            running.set(false);
            for (Thread loop : loops) {
                loop.join(35_000);
            }
        }
    }

    /**
     * @return what the loops did in the measured window, the server's CPU nanoseconds in it, and what they did from
     *     their start to their end (the warm-up half-window included)
     */
    private static long[] window(int threads, TlsLoad.LoopBody body, ServerProcess server, long measure) throws Exception {
        AtomicLong counted = new AtomicLong();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> loops = TlsLoad.loops(threads, body, counted, running, failure);
        try {
            Thread.sleep(Math.max(1000, measure / 2));
            long countBefore = counted.get();
            long cpuBefore = server.cpuNanos();
            Thread.sleep(measure);
            long count = counted.get() - countBefore;
            long cpu = server.cpuNanos() - cpuBefore;
            if (failure.get() != null) {
                throw new IllegalStateException("The load against " + server.kind.label + " failed", failure.get());
            }
            running.set(false);
            for (Thread loop : loops) {
                loop.join(35_000);
            }
            return new long[] {count, cpu, counted.get()};
        }
        finally {
            running.set(false);
            for (Thread loop : loops) {
                loop.join(35_000);
            }
        }
    }

    private static String report(Map<ServerKind, List<Figures>> results, int rounds, int workers, long measure, long warmUp, int idle) {
        StringBuilder text = new StringBuilder();
        text.append(String.format(Locale.ROOT, "TLS 1.3, EC P-256, the JDK's client; each server on the JDK's engine and on OpenSSL's"
                + " (BoringSSL); %d rounds, %d workers, %d ms warm-up, %d ms windows, %d idle connections; medians, (min-max)%n%n",
                rounds, workers, warmUp, measure, idle));
        text.append("| server | echo 1 KiB x64 msg/s | CPU us/msg | full handshake /s | CPU us/full | resumed /s | CPU us/resumed"
                + " | resumed share | idle heap B/conn | idle native B/conn | idle RSS B/conn |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (ServerKind kind : SERVERS) {
            List<Figures> all = results.get(kind);
            text.append("| ").append(kind.label);
            text.append(" | ").append(cell(all, Figures::messagesPerSecond, "%.0f"));
            text.append(" | ").append(cell(all, Figures::cpuMicrosPerMessage, "%.1f"));
            text.append(" | ").append(cell(all, Figures::connectionsPerSecond, "%.0f"));
            text.append(" | ").append(cell(all, Figures::cpuMicrosPerConnection, "%.0f"));
            text.append(" | ").append(cell(all, Figures::resumedPerSecond, "%.0f"));
            text.append(" | ").append(cell(all, Figures::cpuMicrosPerResumed, "%.0f"));
            text.append(" | ").append(cell(all, Figures::resumedShare, "%.2f"));
            text.append(" | ").append(cell(all, Figures::heapPerIdle, "%.0f"));
            text.append(" | ").append(cell(all, Figures::nativePerIdle, "%.0f"));
            text.append(" | ").append(cell(all, Figures::residentPerIdle, "%.0f"));
            text.append(" |\n");
        }
        return text.toString();
    }

    private static String cell(List<Figures> all, java.util.function.ToDoubleFunction<Figures> value, String format) {
        double[] values = all.stream().mapToDouble(value).sorted().toArray();
        double median = values[values.length / 2];
        return String.format(Locale.ROOT, format + " (" + format + "-" + format + ")", median, values[0], values[values.length - 1]);
    }
}
