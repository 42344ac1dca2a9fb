package dev.sockstate.benchmarks.e2e;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The end-to-end comparison: starts each echo server in a JVM of its own, one at a time, drives it
 * with the same load client, and repeats over rounds with the servers' order rotated, so machine
 * noise falls on all of them alike. Usage (see {@code benchmarks/run.sh}):
 * {@code Harness [--quick|--full] [--rounds n] [--workers n] [--servers a,b] [--rate-only] [--framing none|line] [--out dir]
 * [--results dir]}. With {@code --results dir}, the run also goes to a directory meant to be committed
 * ({@link ResultsDirectory}): the report headed by what ran, the samples and the charts.
 */
public final class Harness {

    private static final int PIPELINE_DEPTH = 16;

    private final Settings settings;

    /** Each backend description sockstate's servers gave, with the servers that gave it, in the order first seen. */
    private final Map<String, List<String>> backends = new LinkedHashMap<>();

    private Harness(Settings settings) {
        this.settings = settings;
    }

    /**
     * How long and how much, where the results go ({@code results} {@code null} without {@code --results}),
     * and the options as given.
     */
    record Settings(int rounds, int workers, int clientThreads, long warmupMillis, long measureMillis, long rateWarmupMillis,
            long rateMillis, int rateThreads, int idleConnections, List<ServerKind> servers, List<Scenario> loads,
            boolean rateAndIdle, boolean rateOnly, Path out, Path results, List<String> options) {
    }

    /**
     * @param args the options
     * @throws Exception when a server or the load fails
     */
    public static void main(String[] args) throws Exception {
        Settings settings = parse(args);
        long limit = ProcStats.openFileLimit();
        long needed = settings.idleConnections() + 1024L;
        if (limit < needed) {
            System.err.println("The open-files limit is " + limit + ", the idle run needs at least " + needed
                    + " (it holds " + settings.idleConnections() + " connections): raise it with `ulimit -n " + needed
                    + "` (benchmarks/run.sh does) or lower --idle.");
            System.exit(3);
        }
        Files.createDirectories(settings.out());
        new Harness(settings).run();
    }

    private static Settings parse(String[] args) {
        boolean full = false;
        Integer rounds = null;
        int workers = Runtime.getRuntime().availableProcessors();
        int idle = 10_000;
        List<ServerKind> servers = Arrays.stream(ServerKind.values()).filter((kind) -> kind.compared).collect(Collectors.toList());
        List<Scenario> loads = null;
        boolean rateAndIdle = true;
        boolean rateOnly = false;
        Long measure = null;
        Path out = Path.of("benchmarks", "target", "e2e",
                LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)));
        Path results = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> full = false;
                case "--full" -> full = true;
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--workers" -> workers = Integer.parseInt(args[++i]);
                case "--idle" -> idle = Integer.parseInt(args[++i]);
                case "--servers" -> servers = Arrays.stream(args[++i].split(",")).map(ServerKind::parse).collect(Collectors.toList());
                case "--out" -> out = Path.of(args[++i]);
                case "--results" -> results = Path.of(args[++i]);
                case "--loads" -> loads = Arrays.stream(args[++i].split(",")).map(Scenario::parse).collect(Collectors.toList());
                case "--no-rate-idle" -> rateAndIdle = false;
                case "--rate-only" -> rateOnly = true;
                case "--measure" -> measure = Long.parseLong(args[++i]);
                case "--framing" -> System.setProperty("benchmark.framing", args[++i]);
                default -> throw new IllegalArgumentException("Unknown option " + args[i]
                        + "; use --quick|--full, --rounds n, --workers n, --idle n, --servers a,b, --loads CxSxD,... (connections x"
                        + " size x depth), --no-rate-idle, --rate-only, --measure ms, --framing none|line, --out dir, --results dir");
            }
        }
        if (rateOnly) {
            // Only the connection-rate run: no message loads, no idle connections.
            loads = List.of();
            rateAndIdle = true;
        }
        else if (loads == null) {
            loads = scenarios(full);
        }
        if (full) {
            return new Settings((rounds != null) ? rounds : 5, workers, 2, 1000, (measure != null) ? measure : 2500, 2000, 2500, 4,
                    idle, servers, loads,
                    rateAndIdle, rateOnly, out, results, List.of(args));
        }
        return new Settings((rounds != null) ? rounds : 2, workers, 2, 250, (measure != null) ? measure : 800, 1000, 1000, 4, idle,
                servers, loads, rateAndIdle, rateOnly, out, results, List.of(args));
    }

    /**
     * The loads: every mix of 1, 64 and 256 connections, 64 B and 1 KiB, one message in flight or
     * {@value #PIPELINE_DEPTH} (the quick mode leaves out pipelined 1 KiB and pipelined single
     * connections), then 64 and 256 connections of 64 B with the connections dealt to the client
     * threads in blocks (see {@link Scenario}).
     * @param full whether every mix runs
     * @return the loads in the order they run
     */
    static List<Scenario> scenarios(boolean full) {
        List<Scenario> scenarios = new ArrayList<>();
        for (int depth : new int[] {1, PIPELINE_DEPTH}) {
            for (int size : new int[] {64, 1024}) {
                for (int connections : new int[] {1, 64, 256}) {
                    if (full || depth == 1 || (size == 64 && connections > 1)) {
                        scenarios.add(new Scenario(connections, size, depth));
                    }
                }
            }
        }
        scenarios.add(new Scenario(64, 64, 1, true));
        scenarios.add(new Scenario(256, 64, 1, true));
        return scenarios;
    }

    private void run() throws Exception {
        List<Scenario> scenarios = this.settings.loads();
        Samples samples = new Samples(this.settings.out().resolve("samples.csv"));
        Path log = this.settings.out().resolve("servers.log");
        if (this.settings.servers().stream().anyMatch((kind) -> kind.anchorMode != null)) {
            // Compiled before any measurement, so that no compiler runs beside one.
            log("C anchor: " + CAnchor.binary());
        }
        long started = System.nanoTime();
        LocalDate day = ResultsDirectory.day(Instant.now());
        log("Servers " + this.settings.servers().stream().map((kind) -> kind.label).collect(Collectors.joining(", ")) + ", "
                + this.settings.workers() + " workers each, " + this.settings.rounds() + " rounds; results in "
                + this.settings.out());
        for (int round = 1; round <= this.settings.rounds(); round++) {
            List<ServerKind> order = new ArrayList<>(this.settings.servers());
            java.util.Collections.rotate(order, -(round - 1));
            for (ServerKind kind : order) {
                measure(kind, round, scenarios, samples, log);
            }
        }
        String report = new Report(samples, this.settings.servers(), scenarios).markdown();
        Settings s = this.settings;
        String header = s.rateOnly() ? String.format(Locale.ROOT, "%d rounds, %d workers per server, the connection-rate run alone:"
                + " %d load threads, %d ms measured after %d ms of warm-up; %.0f s in all.%n%n", s.rounds(), s.workers(),
                s.rateThreads(), s.rateMillis(), s.rateWarmupMillis(), (System.nanoTime() - started) / 1e9)
                : String.format(Locale.ROOT, "%d rounds, %d workers per server, %d load threads, %d ms measured per load"
                + " after %d ms of warm-up, %d idle connections; %.0f s in all.%n%n", s.rounds(), s.workers(), s.clientThreads(),
                s.measureMillis(), s.warmupMillis(), s.idleConnections(), (System.nanoTime() - started) / 1e9);
        Files.writeString(this.settings.out().resolve("report.md"), header + report, StandardCharsets.UTF_8);
        System.out.println(header + report);
        if (s.results() != null) {
            RunDescription run = RunDescription.here(s.options(), this.backends, day,
                    ResultsDirectory.commit(System.getenv("COMMIT"), ResultsDirectory::git));
            Path written = ResultsDirectory.write(s.results(), "End-to-end comparison", run, header + report, this.settings.out().resolve("samples.csv"),
                    Charts.of(samples, s.servers(), scenarios));
            log("Results to commit in " + written);
        }
    }

    private void measure(ServerKind kind, int round, List<Scenario> scenarios, Samples samples, Path log) throws Exception {
        Settings s = this.settings;
        try (ServerProcess server = ServerProcess.start(kind, s.workers(), log)) {
            log("round " + round + ": " + kind.label + " (pid " + server.pid() + ", port " + server.port + ")");
            server.noteBackend(this.backends);
            if (!s.rateOnly()) {
                PingPong.run(server.port, new Scenario(64, 64, 1), s.clientThreads(), s.warmupMillis() * 2, 1, server::cpuNanos);
            }
            for (Scenario scenario : scenarios) {
                long systemBefore = ProcStats.systemNanos(server.pid());
                long cpuBefore = server.cpuNanos();
                long switchesBefore = ProcStats.contextSwitches(server.pid());
                PingPong.Result result = PingPong.run(server.port, scenario, s.clientThreads(), s.warmupMillis(),
                        s.measureMillis(), server::cpuNanos);
                double systemShare = (double) (ProcStats.systemNanos(server.pid()) - systemBefore)
                        / Math.max(1, server.cpuNanos() - cpuBefore);
                double switches = (double) (ProcStats.contextSwitches(server.pid()) - switchesBefore) / Math.max(1,
                        result.messages());
                samples.add(new Samples.Throughput(kind, scenario, round, result));
                log(String.format(Locale.ROOT, "  %-16s %10.0f msg/s  p99 %6.0f µs  cpu %.2f µs/msg (%.0f%% system,"
                        + " %.2f context switches/msg, slowest connection %.2f of a fair share)%s", scenario.name(),
                        result.messagesPerSecond(), result.latency().quantile(0.99) / 1000.0, result.cpuMicrosPerMessage(),
                        systemShare * 100, switches, result.slowestConnectionShare(),
                        (result.errors() > 0) ? "  errors " + result.errors() : ""));
            }
            if (!s.rateAndIdle()) {
                return;
            }
            long[] machineBefore = ProcStats.machineIdleAndTotalTicks();
            ConnectionRate.Result rate = ConnectionRate.run(server.port, s.rateThreads(), s.rateWarmupMillis(), s.rateMillis(),
                    server::cpuNanos, () -> ProcStats.systemNanos(server.pid()));
            long[] machineAfter = ProcStats.machineIdleAndTotalTicks();
            double idleShare = (double) (machineAfter[0] - machineBefore[0]) / Math.max(1, machineAfter[1] - machineBefore[1]);
            samples.add(new Samples.Rate(kind, round, rate));
            log(String.format(Locale.ROOT, "  %-16s %10.0f conn/s cpu %.1f µs/conn (user %.1f), machine %.0f%% idle%s",
                    "connect-echo-close", rate.connectionsPerSecond(), rate.cpuMicrosPerConnection(), rate.userMicrosPerConnection(),
                    idleShare * 100,
                    (rate.errors() > 0) ? "  errors " + rate.errors() : ""));
            if (s.rateOnly()) {
                return;
            }
            IdleConnections.Result idle = IdleConnections.run(server, s.idleConnections(), 500);
            samples.add(new Samples.Idle(kind, round, idle));
            log(String.format(Locale.ROOT, "  %-16s %10.0f bytes/conn heap+native (%d -> %d KiB), %.0f bytes/conn resident (%d -> %d MiB)",
                    s.idleConnections() + " idle", idle.bytesPerConnection(), idle.before().total() >> 10,
                    idle.after().total() >> 10, idle.residentBytesPerConnection(), idle.residentBefore() >> 20,
                    idle.residentAfter() >> 20));
        }
    }

    private static void log(String line) {
        System.err.println(line);
    }
}
