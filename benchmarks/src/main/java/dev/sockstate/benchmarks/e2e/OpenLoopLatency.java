package dev.sockstate.benchmarks.e2e;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Latency at a fixed request rate (an open loop), as a user's clients load a server: requests leave
 * at their intended times whatever the server does, and each one's latency counts from its intended
 * time, so a stall delays every request meant to leave during it (no coordinated omission). One
 * worker per server, its process held to one processor; this client on another (the script holds
 * it there); on an idle host, and beside a busy thread that spins on the server's processor (a GC
 * thread, the application's pool, another container). The rates are shares of a capacity measured
 * first: the lowest closed-loop rate of the servers compared, each alone on its processor.
 * <pre>
 * benchmarks/run-latency.sh [--servers a,b,...] [--rounds n] [--loads 25,50,75] [--measure ms] [--connections n]
 *                           [--size bytes] [--capacity msgs/s] [--out dir] [--results dir]
 * </pre>
 */
public final class OpenLoopLatency {

    /** The processor the servers (and the busy thread) run on; the client runs on another. */
    private static final String SERVER_CPU = "0";

    private OpenLoopLatency() {
    }

    public static void main(String[] args) throws Exception {
        List<String> servers = List.of("sockstate", "sockstate-yield", "netty-epoll", "jdk-nio");
        int rounds = 3;
        int[] loads = { 25, 50, 75 };
        long measure = 8_000;
        int connections = 16;
        int size = 64;
        double capacity = 0;
        Path results = null;
        Path out = Path.of("benchmarks", "target", "latency", LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        for (int i = 0; i < args.length; i += 2) {
            String value = (i + 1 < args.length) ? args[i + 1] : null;
            switch (args[i]) {
                case "--servers" -> servers = List.of(value.split(","));
                case "--rounds" -> rounds = Integer.parseInt(value);
                case "--loads" -> loads = Arrays.stream(value.split(",")).mapToInt(Integer::parseInt).toArray();
                case "--measure" -> measure = Long.parseLong(value);
                case "--connections" -> connections = Integer.parseInt(value);
                case "--size" -> size = Integer.parseInt(value);
                case "--capacity" -> capacity = Double.parseDouble(value);
                case "--out" -> out = Path.of(value);
                case "--results" -> results = Path.of(value);
                default -> throw new IllegalArgumentException("Unknown option " + args[i] + "; use --servers a,b,..., --rounds n,"
                        + " --loads p1,p2,..., --measure ms, --connections n, --size bytes, --capacity msgs/s, --out dir, --results dir");
            }
        }
        List<ServerKind> kinds = servers.stream().map(ServerKind::parse).toList();
        Files.createDirectories(out);
        LocalDate day = ResultsDirectory.day(Instant.now());
        Map<String, List<String>> backends = new LinkedHashMap<>();
        if (capacity <= 0) {
            capacity = calibrate(kinds, connections, size, out, backends);
        }
        StringBuilder samples = new StringBuilder("round,host,server,load_percent,rate,requests,late_sends,unanswered,p50_us,p90_us,p99_us,"
                + "p999_us,max_us,server_cpu_us_per_request\n");
        // host -> load -> server -> the rounds' quantiles
        Map<String, Map<Integer, Map<String, List<Point>>>> points = new LinkedHashMap<>();
        for (String host : List.of("idle", "busy")) {
            for (int round = 1; round <= rounds; round++) {
                List<ServerKind> order = new ArrayList<>(kinds);
                Collections.rotate(order, -(round - 1));
                for (ServerKind kind : order) {
                    Process busy = host.equals("busy") ? spin() : null;
                    try (ServerProcess server = ServerProcess.start(kind, 1, out.resolve(kind.label + ".log"), SERVER_CPU)) {
                        server.noteBackend(backends);
                        // Warm-up: the JIT compiles every server's path at the middle rate; not counted.
                        OpenLoop.run(server.port, connections, size, capacity * 0.5, 8_000, 0, server::cpuNanos);
                        for (int load : loads) {
                            double rate = capacity * load / 100;
                            Point point = OpenLoop.run(server.port, connections, size, rate, 1_000, measure, server::cpuNanos);
                            points.computeIfAbsent(host, (key) -> new LinkedHashMap<>()).computeIfAbsent(load, (key) -> new LinkedHashMap<>())
                                    .computeIfAbsent(kind.label, (key) -> new ArrayList<>()).add(point);
                            samples.append(String.format(Locale.ROOT, "%d,%s,%s,%d,%.0f,%s%n", round, host, kind.label, load, rate, point.csv()));
                            System.err.printf(Locale.ROOT, "%s host, round %d, %s at %d%% (%,.0f/s): %s%n", host, round, kind.label, load,
                                    rate, point);
                        }
                    }
                    finally {
                        if (busy != null) {
                            busy.destroyForcibly().waitFor();
                        }
                    }
                }
            }
        }
        String report = report(kinds, loads, points, capacity, rounds, measure, connections, size);
        Files.writeString(out.resolve("report.md"), report, StandardCharsets.UTF_8);
        Files.writeString(out.resolve("samples.csv"), samples, StandardCharsets.UTF_8);
        System.out.print(report);
        if (results != null) {
            RunDescription run = RunDescription.here(List.of(args), backends, day,
                    ResultsDirectory.commit(System.getenv("COMMIT"), ResultsDirectory::git));
            Path written = ResultsDirectory.write(results, "Open-loop latency", run, report, out.resolve("samples.csv"), List.of());
            System.err.println("Results to commit in " + written);
        }
    }

    /** @return the lowest closed-loop rate of the servers, each alone on its processor, with as many connections, one request in flight each */
    private static double calibrate(List<ServerKind> kinds, int connections, int size, Path out, Map<String, List<String>> backends)
            throws Exception {
        double lowest = Double.MAX_VALUE;
        for (ServerKind kind : kinds) {
            try (ServerProcess server = ServerProcess.start(kind, 1, out.resolve(kind.label + ".log"), SERVER_CPU)) {
                server.noteBackend(backends);
                PingPong.Result result = PingPong.run(server.port, new Scenario(connections, size, 1), 1, 3_000, 3_000, server::cpuNanos);
                System.err.printf(Locale.ROOT, "capacity of %s: %,.0f requests/s%n", kind.label, result.messagesPerSecond());
                if (lowest == Double.MAX_VALUE) {
                    // The client's own loop compiled before any window counts (its compiler shares the client's processor).
                    OpenLoop.run(server.port, connections, size, result.messagesPerSecond() * 0.4, 10_000, 0, server::cpuNanos);
                }
                lowest = Math.min(lowest, result.messagesPerSecond());
            }
        }
        return lowest;
    }

    /** A thread that spins on the servers' processor for as long as it lives, and no longer than this JVM. */
    private static Process spin() throws IOException {
        Process spinning = new ProcessBuilder("taskset", "-c", SERVER_CPU, "sh", "-c", "while :; do :; done")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        Runtime.getRuntime().addShutdownHook(new Thread(spinning::destroyForcibly));
        return spinning;
    }

    private static String report(List<ServerKind> kinds, int[] loads, Map<String, Map<Integer, Map<String, List<Point>>>> points,
            double capacity, int rounds, long measure, int connections, int size) {
        StringBuilder report = new StringBuilder();
        report.append(String.format(Locale.ROOT, "Open loop: requests of %d bytes leave at fixed intervals over %d connections, whatever"
                + " the server does, and each latency counts from the request's intended time (a stall delays every request meant to"
                + " leave during it). Each server has one worker and runs on one processor; the client on another, the"
                + " processors this page's head counts being the client's. Capacity: the"
                + " lowest closed-loop rate of the servers (one request in flight a connection), %,.0f requests/s; the loads are shares"
                + " of it. Busy: a thread spins on the servers' processor throughout. %d rounds, the servers started afresh each round in"
                + " a rotated order; windows of %d ms after 1 s at the rate (and 8 s at half the capacity once a server started)."
                + " Latency in µs, median over the rounds (p99 with its min–max); unanswered requests count with what they waited at least."
                + " Sent late: requests the client itself sent more than 100 µs after their time (its own noise), the worst round.%n%n", size, connections, capacity, rounds, measure));
        for (Map.Entry<String, Map<Integer, Map<String, List<Point>>>> host : points.entrySet()) {
            report.append("### ").append(host.getKey().equals("idle") ? "Idle host" : "Beside a busy thread").append("\n\n");
            report.append("| server | load | p50 | p90 | p99 | p99.9 | max | CPU µs/request | sent late % (max) | unanswered |\n"
                    + "|---|---|---|---|---|---|---|---|---|---|\n");
            for (ServerKind kind : kinds) {
                for (int load : loads) {
                    List<Point> rounds1 = host.getValue().getOrDefault(load, Map.of()).getOrDefault(kind.label, List.of());
                    report.append(String.format(Locale.ROOT, "| %s | %d%% | %s | %s | %s | %s | %s | %s | %.2f | %d |%n", kind.label, load,
                            median(rounds1, Point::p50), median(rounds1, Point::p90),
                            Spread.of(rounds1.stream().map(Point::p99).toList()).format("%.0f"), median(rounds1, Point::p999),
                            median(rounds1, Point::max), Spread.of(rounds1.stream().map(Point::cpuMicrosPerRequest).toList()).format("%.1f"),
                            rounds1.stream().mapToDouble(Point::latePercent).max().orElse(0),
                            rounds1.stream().mapToLong(Point::unanswered).sum()));
                }
            }
            report.append('\n');
        }
        return report.toString();
    }

    private static String median(List<Point> points, java.util.function.ToDoubleFunction<Point> value) {
        double median = Spread.of(points.stream().map(value::applyAsDouble).toList()).median();
        return Double.isNaN(median) ? "–" : String.format(Locale.ROOT, "%.0f", median);
    }

    /**
     * One window's latencies, in µs, from each request's intended send time to its echo's last byte.
     * @param requests requests meant to leave in the window
     * @param lateSends requests that left more than 100 µs after their time (the client's own lag)
     * @param unanswered requests of the window whose echo had not come a second after it
     */
    record Point(long requests, long lateSends, long unanswered, double p50, double p90, double p99, double p999, double max,
            double cpuMicrosPerRequest) {

        String csv() {
            return String.format(Locale.ROOT, "%d,%d,%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.2f", this.requests, this.lateSends, this.unanswered,
                    this.p50, this.p90, this.p99, this.p999, this.max, this.cpuMicrosPerRequest);
        }

        /** @return the share of the window's requests the client sent late, in percent */
        double latePercent() {
            return (this.requests == 0) ? 0 : 100.0 * this.lateSends / this.requests;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%,d requests (%d sent late, %d unanswered); p50 %.0f µs, p90 %.0f, p99 %.0f, p99.9 %.0f,"
                    + " max %.0f; server CPU %.1f µs a request", this.requests, this.lateSends, this.unanswered, this.p50, this.p90,
                    this.p99, this.p999, this.max, this.cpuMicrosPerRequest);
        }
    }

    /** The client: one thread, non-blocking connections, requests sent round-robin at their intended times. */
    static final class OpenLoop {

        private static final long LATE_NANOS = 100_000;

        private final List<Connection> connections = new ArrayList<>();

        private final Selector selector;

        private final int size;

        private final LatencyHistogram latency = new LatencyHistogram();

        private long measureFrom;

        private long measureTo;

        private long late;

        private long recorded;

        private OpenLoop(Selector selector, int size) {
            this.selector = selector;
            this.size = size;
        }

        /**
         * @param port the server's loopback port
         * @param connections how many connections share the rate
         * @param size each request's bytes (echoed whole)
         * @param rate requests a second
         * @param warmupMillis time at the rate before the window
         * @param measureMillis the window; 0 for a warm-up alone
         * @param serverCpu the server's processor time, read at the window's ends
         * @return the window's latencies
         */
        static Point run(int port, int connections, int size, double rate, long warmupMillis, long measureMillis,
                java.util.function.LongSupplier serverCpu) throws IOException {
            try (Selector selector = Selector.open()) {
                OpenLoop loop = new OpenLoop(selector, size);
                try {
                    return loop.drive(port, connections, rate, warmupMillis, measureMillis, serverCpu);
                }
                finally {
                    for (Connection connection : loop.connections) {
                        connection.channel.close();
                    }
                }
            }
        }

        private Point drive(int port, int count, double rate, long warmupMillis, long measureMillis,
                java.util.function.LongSupplier serverCpu) throws IOException {
            InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
            for (int c = 0; c < count; c++) {
                SocketChannel channel = SocketChannel.open();
                Connection connection = new Connection(channel, this.size);
                // Closed with the others whatever happens next.
                this.connections.add(connection);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                channel.connect(server);
                channel.configureBlocking(false);
                channel.register(this.selector, SelectionKey.OP_READ, connection);
            }
            double interval = 1e9 / rate;
            long start = System.nanoTime();
            this.measureFrom = start + warmupMillis * 1_000_000;
            this.measureTo = this.measureFrom + measureMillis * 1_000_000;
            // Requests meant to leave in the window are awaited up to a second after it.
            long end = this.measureTo + ((measureMillis > 0) ? 1_000_000_000L : 0);
            long cpuBefore = -1;
            long sent = 0;
            long intended = start;
            long inWindow = 0;
            while (true) {
                long now = System.nanoTime();
                if (cpuBefore < 0 && now >= this.measureFrom) {
                    cpuBefore = serverCpu.getAsLong();
                }
                if (now >= end || now >= this.measureTo && outstanding(this.measureTo) == 0) {
                    break;
                }
                while (intended <= now && intended < this.measureTo) {
                    Connection connection = this.connections.get((int) (sent % count));
                    connection.send(intended);
                    if (intended >= this.measureFrom) {
                        inWindow++;
                        if (now - intended > LATE_NANOS) {
                            this.late++;
                        }
                    }
                    sent++;
                    intended = start + (long) (sent * interval);
                }
                for (Connection connection : this.connections) {
                    connection.flush();
                }
                if (this.selector.selectNow() > 0) {
                    long arrived = System.nanoTime();
                    for (SelectionKey key : this.selector.selectedKeys()) {
                        ((Connection) key.attachment()).read(arrived, this);
                    }
                    this.selector.selectedKeys().clear();
                }
            }
            long cpuAfter = serverCpu.getAsLong();
            if (measureMillis == 0) {
                return null;
            }
            long unanswered = inWindow - this.recorded;
            long gaveUp = System.nanoTime();
            for (Connection connection : this.connections) {
                // Each one unanswered counts with what it waited at least, so that a server that stalls is not flattered.
                connection.unanswered(this.measureFrom, this.measureTo, (time) -> this.latency.record(gaveUp - time));
            }
            double cpu = (inWindow == 0) ? Double.NaN : (cpuAfter - cpuBefore) / 1000.0 / inWindow;
            return new Point(inWindow, this.late, unanswered, this.latency.quantile(0.5) / 1000.0, this.latency.quantile(0.9) / 1000.0,
                    this.latency.quantile(0.99) / 1000.0, this.latency.quantile(0.999) / 1000.0, this.latency.quantile(1.0) / 1000.0, cpu);
        }

        /** @return requests meant to leave before the time whose echo has not come */
        private long outstanding(long before) {
            long waiting = 0;
            for (Connection connection : this.connections) {
                waiting += connection.waitingBefore(before);
            }
            return waiting;
        }

        void answered(long intended, long arrived) {
            if (intended >= this.measureFrom && intended < this.measureTo) {
                this.latency.record(arrived - intended);
                this.recorded++;
            }
        }
    }

    /** One connection: the intended times of its requests in flight, in order, and its bytes to send. */
    private static final class Connection {

        final SocketChannel channel;

        private final int size;

        private final ByteBuffer request;

        private final ByteBuffer out = ByteBuffer.allocateDirect(1 << 20).flip();

        private final ByteBuffer in = ByteBuffer.allocateDirect(64 * 1024);

        private long[] times = new long[1024];

        private int head;

        private int count;

        private long received;

        Connection(SocketChannel channel, int size) {
            this.channel = channel;
            this.size = size;
            byte[] bytes = new byte[size];
            Arrays.fill(bytes, (byte) 'x');
            this.request = ByteBuffer.wrap(bytes);
        }

        void send(long intended) throws IOException {
            if (this.count == this.times.length) {
                long[] grown = new long[2 * this.times.length];
                for (int i = 0; i < this.count; i++) {
                    grown[i] = this.times[(this.head + i) % this.times.length];
                }
                this.times = grown;
                this.head = 0;
            }
            this.times[(this.head + this.count) % this.times.length] = intended;
            this.count++;
            this.out.compact();
            if (this.out.remaining() < this.size) {
                throw new IllegalStateException("The server reads nothing: over a mebibyte waits to be sent on one connection");
            }
            this.out.put(this.request.clear());
            this.out.flip();
            this.channel.write(this.out);
        }

        void flush() throws IOException {
            if (this.out.hasRemaining()) {
                this.channel.write(this.out);
            }
        }

        void read(long arrived, OpenLoop loop) throws IOException {
            this.in.clear();
            int read = this.channel.read(this.in);
            if (read < 0) {
                throw new IOException("The server closed a connection");
            }
            this.received += read;
            while (this.received >= this.size && this.count > 0) {
                this.received -= this.size;
                loop.answered(this.times[this.head], arrived);
                this.head = (this.head + 1) % this.times.length;
                this.count--;
            }
        }

        void unanswered(long from, long to, java.util.function.LongConsumer waited) {
            for (int i = 0; i < this.count; i++) {
                long intended = this.times[(this.head + i) % this.times.length];
                if (intended >= from && intended < to) {
                    waited.accept(intended);
                }
            }
        }

        long waitingBefore(long before) {
            long waiting = 0;
            for (int i = 0; i < this.count; i++) {
                if (this.times[(this.head + i) % this.times.length] < before) {
                    waiting++;
                }
            }
            return waiting;
        }
    }
}
