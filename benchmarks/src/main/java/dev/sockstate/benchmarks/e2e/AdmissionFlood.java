package dev.sockstate.benchmarks.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one source that floods a listener with connections costs everyone else: sockstate's default with
 * an admission cap of {@value #CAP} connections per source ({@link ServerKind#SOCKSTATE_ADMISSION}, in a
 * process of its own), a client of {@value #ECHO_CONNECTIONS} connections from 127.0.0.2 echoing 64-byte
 * messages one at a time, and, in every other window, a flooder on 127.0.0.3 that opens connections in a
 * loop ({@value #FLOOD_BATCH} each pass, every one past the cap closed by the listener as it is accepted)
 * and holds them until the pass ends. Each round measures a quiet window and a flooded one, alternating
 * which comes first; the report gives each window's echo latency (p50, p99) and the flooded p99 over the
 * quiet one, with the spread over the rounds.
 * With {@code --control} the flood goes to a second server process instead, so that what the echoes lose
 * then is the host's (the cores the flood takes), not the flooded listener's.
 * <p>
 * {@code AdmissionFlood [--rounds n] [--measure ms] [--workers n] [--control] [--out dir] [--results dir]}
 */
public final class AdmissionFlood {

    /** The connections one source may hold. */
    static final int CAP = 100;

    /** The echo client's connections. */
    static final int ECHO_CONNECTIONS = 8;

    /** The connections the flooder opens in one pass before it closes them all and starts again. */
    static final int FLOOD_BATCH = 5000;

    private static final int MESSAGE = 64;

    private AdmissionFlood() {
    }

    /**
     * @param args the options
     * @throws Exception when the server cannot start or a window fails
     */
    public static void main(String[] args) throws Exception {
        int rounds = 5;
        long measure = 10_000;
        int workers = Runtime.getRuntime().availableProcessors();
        Path results = null;
        boolean control = false;
        Path out = Path.of("benchmarks", "target", "admission",
                LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        for (int i = 0; i < args.length; i += 2) {
            String value = (i + 1 < args.length) ? args[i + 1] : null;
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(value);
                case "--measure" -> measure = Long.parseLong(value);
                case "--workers" -> workers = Integer.parseInt(value);
                case "--out" -> out = Path.of(value);
                case "--results" -> results = Path.of(value);
                case "--control" -> {
                    control = true;
                    i--;
                }
                default -> throw new IllegalArgumentException("Unknown option " + args[i]
                        + "; use --rounds n, --measure ms, --workers n, --out dir, --results dir, --control");
            }
        }
        Files.createDirectories(out);
        LocalDate day = ResultsDirectory.day(Instant.now());
        Map<String, List<String>> backends = new LinkedHashMap<>();
        StringBuilder samples = new StringBuilder("round,window,echoes,p50_us,p99_us,flood_attempts,flood_refused\n");
        List<Double> ratios = new ArrayList<>();
        List<Window> quiet = new ArrayList<>();
        List<Window> flooded = new ArrayList<>();
        try (ServerProcess server = ServerProcess.start(ServerKind.SOCKSTATE_ADMISSION, workers, out.resolve("server.log"));
                ServerProcess other = control ? ServerProcess.start(ServerKind.SOCKSTATE_ADMISSION, workers, out.resolve("other.log"))
                        : null) {
            server.noteBackend(backends);
            // With --control the flood goes to another server process on the same cores: what the echoes then lose
            // is the host's, not the flooded listener's.
            int target = (other != null) ? other.port : server.port;
            // Warm-up: both windows once, not counted.
            window(server.port, target, false, Math.min(measure, 3000));
            window(server.port, target, true, Math.min(measure, 3000));
            for (int round = 1; round <= rounds; round++) {
                Window a;
                Window b;
                if (round % 2 == 1) {
                    a = window(server.port, target, false, measure);
                    b = window(server.port, target, true, measure);
                }
                else {
                    b = window(server.port, target, true, measure);
                    a = window(server.port, target, false, measure);
                }
                quiet.add(a);
                flooded.add(b);
                ratios.add((double) b.p99 / a.p99);
                samples.append(a.csv(round, "quiet")).append(b.csv(round, "flooded"));
                System.err.printf(Locale.ROOT, "round %d: quiet %s; flooded %s%n", round, a, b);
            }
        }
        String report = report(quiet, flooded, ratios, measure, workers, control);
        Files.writeString(out.resolve("report.md"), report, StandardCharsets.UTF_8);
        Files.writeString(out.resolve("samples.csv"), samples, StandardCharsets.UTF_8);
        System.out.print(report);
        if (results != null) {
            RunDescription run = RunDescription.here(List.of(args), backends, day,
                    ResultsDirectory.commit(System.getenv("COMMIT"), ResultsDirectory::git));
            Path written = ResultsDirectory.write(results, "Admission under a connection flood", run, report, out.resolve("samples.csv"),
                    List.of());
            System.err.println("Results to commit in " + written);
        }
    }

    private static String report(List<Window> quiet, List<Window> flooded, List<Double> ratios, long measure, int workers,
            boolean control) {
        StringBuilder report = new StringBuilder();
        if (control) {
            report.append("Control: the flood goes to another server process of the same kind, not to the echo server.\n\n");
        }
        report.append(String.format(Locale.ROOT, "%d rounds of a quiet and a flooded window of %d ms each, alternating which comes"
                + " first; %d workers; %d echo connections from 127.0.0.2, one %d-byte message in flight on each; the flooder on"
                + " 127.0.0.3 opening %d connections a pass against a cap of %d per source.%n%n", ratios.size(), measure, workers,
                ECHO_CONNECTIONS, MESSAGE, FLOOD_BATCH, CAP));
        report.append("| round | quiet p50 µs | quiet p99 µs | flooded p50 µs | flooded p99 µs | flooded/quiet p99 | flood connections"
                + " opened | refused |\n|---|---|---|---|---|---|---|---|\n");
        for (int i = 0; i < ratios.size(); i++) {
            Window a = quiet.get(i);
            Window b = flooded.get(i);
            report.append(String.format(Locale.ROOT, "| %d | %.0f | %.0f | %.0f | %.0f | %.2f | %d | %d |%n", i + 1, a.p50 / 1e3,
                    a.p99 / 1e3, b.p50 / 1e3, b.p99 / 1e3, ratios.get(i), b.attempts, b.refused));
        }
        Spread spread = Spread.of(ratios);
        report.append(String.format(Locale.ROOT, "%nFlooded p99 over quiet p99: median %.2f, from %.2f to %.2f.%n", spread.median(),
                spread.min(), spread.max()));
        return report.toString();
    }

    /** One window: the echo client's latency, and what the flooder did meanwhile (nothing in a quiet one). */
    private static Window window(int port, int floodPort, boolean flood, long millis) throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong attempts = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        Thread flooder = null;
        if (flood) {
            flooder = new Thread(() -> flood(floodPort, running, attempts, refused), "flooder");
            flooder.start();
            // The flood under way before the echoes are timed.
            Thread.sleep(500);
        }
        List<Socket> sockets = new ArrayList<>();
        LatencyHistogram latency = new LatencyHistogram();
        long echoes = 0;
        try {
            for (int i = 0; i < ECHO_CONNECTIONS; i++) {
                sockets.add(connect("127.0.0.2", port));
            }
            byte[] message = new byte[MESSAGE];
            byte[] answer = new byte[MESSAGE];
            long end = System.nanoTime() + millis * 1_000_000;
            while (System.nanoTime() < end) {
                for (Socket socket : sockets) {
                    OutputStream output = socket.getOutputStream();
                    InputStream input = socket.getInputStream();
                    long sent = System.nanoTime();
                    output.write(message);
                    int read = 0;
                    while (read < MESSAGE) {
                        int n = input.read(answer, read, MESSAGE - read);
                        if (n < 0) {
                            throw new IOException("the echo connection ended");
                        }
                        read += n;
                    }
                    latency.record(System.nanoTime() - sent);
                    echoes++;
                }
            }
        }
        finally {
            for (Socket socket : sockets) {
                socket.close();
            }
            running.set(false);
            if (flooder != null) {
                flooder.join(30_000);
            }
        }
        return new Window(echoes, latency.quantile(0.5), latency.quantile(0.99), attempts.get(), refused.get());
    }

    /** Opens connections from 127.0.0.3 in passes of {@value #FLOOD_BATCH}, each held until the pass ends. */
    private static void flood(int port, AtomicBoolean running, AtomicLong attempts, AtomicLong refused) {
        while (running.get()) {
            List<Socket> held = new ArrayList<>(FLOOD_BATCH);
            try {
                for (int i = 0; i < FLOOD_BATCH && running.get(); i++) {
                    try {
                        held.add(connect("127.0.0.3", port));
                        attempts.incrementAndGet();
                    }
                    catch (IOException ex) {
                        // The backlog full, or the ports of 127.0.0.3 spent: counted as an attempt that failed.
                        attempts.incrementAndGet();
                    }
                }
                for (Socket socket : held) {
                    // A refused connection was closed by the listener: its read ends at once.
                    socket.setSoTimeout(1);
                    try {
                        if (socket.getInputStream().read() < 0) {
                            refused.incrementAndGet();
                        }
                    }
                    catch (IOException ex) {
                        // Still open (a read timed out), or reset: an open one is admitted.
                        if (!(ex instanceof java.net.SocketTimeoutException)) {
                            refused.incrementAndGet();
                        }
                    }
                }
            }
            catch (IOException ex) {
                throw new IllegalStateException(ex);
            }
            finally {
                for (Socket socket : held) {
                    try {
                        socket.setSoLinger(true, 0);
                        socket.close();
                    }
                    catch (IOException ex) {
                        // closed all the same
                    }
                }
            }
        }
    }

    private static Socket connect(String source, int port) throws IOException {
        Socket socket = new Socket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
        socket.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 5000);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(10_000);
        return socket;
    }

    private record Window(long echoes, long p50, long p99, long attempts, long refused) {

        String csv(int round, String window) {
            return String.format(Locale.ROOT, "%d,%s,%d,%.1f,%.1f,%d,%d%n", round, window, this.echoes, this.p50 / 1e3, this.p99 / 1e3,
                    this.attempts, this.refused);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%d echoes, p50 %.0f µs, p99 %.0f µs, %d flood connections (%d refused)", this.echoes,
                    this.p50 / 1e3, this.p99 / 1e3, this.attempts, this.refused);
        }
    }
}
