package dev.sockstate.benchmarks.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * UDP at fixed rates: a C sender ({@code benchmarks/src/main/c/udp_sender.c}, {@code sendmmsg} every
 * 100 µs) against one receiver at a time, each in a process of its own, one thread receiving, each
 * datagram counted and answered with its count:
 * <ul>
 * <li>{@code sockstate}: the sample application's counting UDP listener (its jar, {@code SAMPLE_JAR} or
 * {@code sample-app/target/sample-app.jar}: edge-triggered, one worker, 32 datagrams a receive call), with
 * Debian's {@code redis-server} on port 6379 for the sample's redis client, as the sample expects;
 * {@code sockstate-yield} the same with its worker group's {@code yield-before-wait} on;</li>
 * <li>{@code netty-epoll}: Netty's epoll datagram channel with its batch reads on ({@link DatagramReceiver});</li>
 * <li>{@code jdk-nio}: the JDK's {@code DatagramChannel} on a selector ({@link DatagramReceiver});</li>
 * <li>{@code c-recvmmsg}: the limit, {@code benchmarks/src/main/c/udp_receiver.c}: edge-triggered epoll,
 * {@code recvmmsg} of 64 and the answers in one {@code sendmmsg}.</li>
 * </ul>
 * Every receiver has the system's default receive buffer. For each datagram size, each round starts each
 * receiver afresh (in a rotated order), warms it up, measures its processor time per datagram at
 * {@code --cpu-rate}, then raises the rate through {@code --rates} until more than {@value #LOSS_LIMIT_PERCENT}%
 * of a window's datagrams are lost in each of {@code --tries} windows (2: on a small host a pause of 10 ms,
 * of the host or of a receiver's own, loses that much; the second window forgives one such pause to every
 * receiver, a JVM's collector or compiler included): its lossless rate is the last rate it held (0 in a round
 * where it held not even the lowest). The environment variable {@code SERVER_JVM_OPTS} adds options to
 * every receiver JVM (a collector's log, a profiler's agent), as to the echo harness's servers.
 * <p>
 * {@code --cpus 0/1} holds the sender to processor 0 and each receiver (all its threads) to processor 1
 * ({@code taskset -c}): no receiver then shares a processor with the sender, nor is moved between them.
 * <p>
 * {@code DatagramRate [--rounds n] [--tries n] [--measure ms] [--sizes 64,1200] [--rates r1,r2,...] [--cpu-rate r]
 * [--receivers a,b,...] [--cpus s/r] [--out dir] [--results dir]}
 */
public final class DatagramRate {

    /** The most loss a window may have and count as held, in percent. */
    static final double LOSS_LIMIT_PERCENT = 0.1;

    static final Path SENDER_SOURCE = Path.of("benchmarks", "src", "main", "c", "udp_sender.c");

    static final Path SENDER = Path.of("benchmarks", "target", "udp_sender");

    static final Path RECEIVER_SOURCE = Path.of("benchmarks", "src", "main", "c", "udp_receiver.c");

    static final Path RECEIVER = Path.of("benchmarks", "target", "udp_receiver");

    /** The sample's UDP listener's port, which every receiver binds. */
    static final int PORT = 7009;

    /** Where the sample's redis client connects: a {@code redis-server} runs there beside the sample. */
    static final int REDIS_PORT = 6379;

    private static final Pattern SENDER_LINE = Pattern.compile("sent (\\d+) received (\\d+) late_ticks (\\d+)");

    private DatagramRate() {
    }

    /**
     * @param args the options
     * @throws Exception when a receiver cannot start or a window fails
     */
    public static void main(String[] args) throws Exception {
        int rounds = 3;
        int tries = 2;
        long measure = 10_000;
        int[] sizes = { 64, 1200 };
        int[] rates = { 50_000, 75_000, 90_000, 100_000, 110_000, 125_000, 150_000, 200_000, 250_000, 300_000 };
        int cpuRate = 40_000;
        List<String> receivers = List.of("sockstate", "netty-epoll", "jdk-nio", "c-recvmmsg");
        Path results = null;
        String senderCpus = null;
        String receiverCpus = null;
        Path out = Path.of("benchmarks", "target", "udp", LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        for (int i = 0; i < args.length; i += 2) {
            String value = (i + 1 < args.length) ? args[i + 1] : null;
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(value);
                case "--tries" -> tries = Math.max(1, Integer.parseInt(value));
                case "--measure" -> measure = Long.parseLong(value);
                case "--sizes" -> sizes = Arrays.stream(value.split(",")).mapToInt(Integer::parseInt).toArray();
                case "--rates" -> rates = Arrays.stream(value.split(",")).mapToInt(Integer::parseInt).sorted().toArray();
                case "--cpu-rate" -> cpuRate = Integer.parseInt(value);
                case "--receivers" -> receivers = List.of(value.split(","));
                case "--cpus" -> {
                    String[] both = value.split("/", -1);
                    if (both.length != 2 || both[0].isBlank() || both[1].isBlank()) {
                        throw new IllegalArgumentException("--cpus takes the sender's processors and the receiver's, as taskset -c"
                                + " names them, with a slash between: 0/1");
                    }
                    senderCpus = both[0];
                    receiverCpus = both[1];
                }
                case "--out" -> out = Path.of(value);
                case "--results" -> results = Path.of(value);
                default -> throw new IllegalArgumentException("Unknown option " + args[i] + "; use --rounds n, --measure ms, --sizes a,b,"
                        + " --rates r1,r2,..., --cpu-rate r, --tries n, --receivers a,b,..., --cpus s/r, --out dir, --results dir");
            }
        }
        for (String receiver : receivers) {
            if (!List.of("sockstate", "sockstate-yield", "netty-epoll", "jdk-nio", "c-recvmmsg").contains(receiver)) {
                throw new IllegalArgumentException("Unknown receiver " + receiver + "; the receivers are sockstate, sockstate-yield,"
                        + " netty-epoll, jdk-nio, c-recvmmsg");
            }
        }
        Files.createDirectories(out);
        CAnchor.compile(SENDER_SOURCE, SENDER);
        CAnchor.compile(RECEIVER_SOURCE, RECEIVER);
        LocalDate day = ResultsDirectory.day(Instant.now());
        Map<String, List<String>> backends = new LinkedHashMap<>();
        StringBuilder samples = new StringBuilder("round,size,receiver,window,rate,sent,received,loss_percent,cpu_ms,cpu_ns_per_datagram,"
                + "late_ticks\n");
        // size -> receiver -> the rounds' figures
        Map<Integer, Map<String, List<Double>>> lossless = new LinkedHashMap<>();
        Map<Integer, Map<String, List<Double>>> cpuPerDatagram = new LinkedHashMap<>();
        for (int size : sizes) {
            for (int round = 1; round <= rounds; round++) {
                List<String> order = new ArrayList<>(receivers);
                java.util.Collections.rotate(order, -(round - 1));
                for (String name : order) {
                    try (Receiver receiver = Receiver.start(name, out.resolve(name + ".log"), receiverCpus)) {
                        receiver.noteBackend(backends);
                        // Warm-up: the JIT compiles the receive path; not counted.
                        window(receiver, cpuRate, size, Math.min(measure, 5000), senderCpus);
                        Window cpu = window(receiver, cpuRate, size, measure, senderCpus);
                        samples.append(cpu.csv(round, size, name, "cpu"));
                        cpuPerDatagram.computeIfAbsent(size, (key) -> new LinkedHashMap<>()).computeIfAbsent(name, (key) -> new ArrayList<>())
                                .add(cpu.cpuNanosPerDatagram());
                        int held = 0;
                        for (int rate : rates) {
                            // A window may lose to a pause of the host (a 10 ms stall of either side loses 0.1%): the rate
                            // is tried again, up to --tries windows, and held if one of them lost no more than the limit.
                            boolean kept = false;
                            for (int attempt = 1; attempt <= tries && !kept; attempt++) {
                                Window step = window(receiver, rate, size, measure, senderCpus);
                                samples.append(step.csv(round, size, name, "rate"));
                                System.err.printf(Locale.ROOT, "%d B, round %d, %s: %s%n", size, round, name, step);
                                kept = step.lossPercent() <= LOSS_LIMIT_PERCENT;
                            }
                            if (!kept) {
                                break;
                            }
                            held = rate;
                        }
                        lossless.computeIfAbsent(size, (key) -> new LinkedHashMap<>()).computeIfAbsent(name, (key) -> new ArrayList<>())
                                .add((double) held);
                        System.err.printf(Locale.ROOT, "%d B, round %d, %s: lossless up to %,d/s; %.0f ns of CPU a datagram at %,d/s%n", size,
                                round, name, held, cpu.cpuNanosPerDatagram(), cpuRate);
                    }
                }
            }
        }
        String report = report(receivers, sizes, lossless, cpuPerDatagram, rounds, tries, measure, rates, cpuRate, senderCpus, receiverCpus);
        Files.writeString(out.resolve("report.md"), report, StandardCharsets.UTF_8);
        Files.writeString(out.resolve("samples.csv"), samples, StandardCharsets.UTF_8);
        System.out.print(report);
        if (results != null) {
            RunDescription run = RunDescription.here(List.of(args), backends, day,
                    ResultsDirectory.commit(System.getenv("COMMIT"), ResultsDirectory::git));
            Path written = ResultsDirectory.write(results, "UDP receive rate", run, report, out.resolve("samples.csv"), List.of());
            System.err.println("Results to commit in " + written);
        }
    }

    private static String report(List<String> receivers, int[] sizes, Map<Integer, Map<String, List<Double>>> lossless,
            Map<Integer, Map<String, List<Double>>> cpuPerDatagram, int rounds, int tries, long measure, int[] rates, int cpuRate,
            String senderCpus, String receiverCpus) {
        StringBuilder report = new StringBuilder();
        report.append(String.format(Locale.ROOT, "%d rounds a datagram size, each receiver started afresh each round in a rotated order;"
                + " windows of %d ms; the C sender paces sendmmsg every 100 µs; every receiver answers each datagram with its count,"
                + " on one thread, with the system's default receive buffer%s. Lossless: the highest of %s datagrams a second at which"
                + " one of %d windows lost at most %.1f%% (each rate held before the next is tried). CPU: the receiver process's"
                + " processor time (user and system) over the datagrams it received in a window at %,d a second. Median (min–max)"
                + " over the rounds.%s%n%n", rounds, measure,
                receivers.stream().anyMatch((name) -> name.startsWith("sockstate")) ? " (the sample with a redis-server for its client)" : "",
                Arrays.toString(rates), tries, LOSS_LIMIT_PERCENT, cpuRate,
                (senderCpus == null) ? "" : " The sender is held to processor(s) " + senderCpus + " and every receiver to "
                        + receiverCpus + " (taskset), a receiver's other threads (its JVM's compiler and collector) with it; a JVM"
                        + " so held sizes its own threads (the collector's, the compiler's) for those processors."));
        for (int size : sizes) {
            report.append("### ").append(size).append("-byte datagrams\n\n");
            report.append("| receiver | lossless datagrams/s | × C | CPU ns/datagram | × C |\n|---|---|---|---|---|\n");
            Spread limit = Spread.of(lossless.get(size).getOrDefault("c-recvmmsg", List.of()));
            Spread limitCpu = Spread.of(cpuPerDatagram.get(size).getOrDefault("c-recvmmsg", List.of()));
            int top = rates[rates.length - 1];
            for (String name : receivers) {
                Spread rate = Spread.of(lossless.get(size).get(name));
                Spread cpu = Spread.of(cpuPerDatagram.get(size).get(name));
                // A receiver that held the highest rate tried may hold more: its figure is a floor, and so a ratio to it.
                boolean floor = rate.max() >= top;
                boolean limitFloor = limit.max() >= top;
                // A receiver that lost too much at the lowest rate tried in every round held none of them.
                String held = (rate.max() == 0) ? String.format(Locale.ROOT, "< %,d", rates[0]) : (floor ? "≥ " : "") + rate.format("%,.0f");
                report.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s |%n", name, held,
                        (Double.isNaN(limit.median()) || limitFloor) ? "–" : String.format(Locale.ROOT, "%.2f", rate.median() / limit.median()),
                        cpu.format("%,.0f"),
                        Double.isNaN(limitCpu.median()) ? "–" : String.format(Locale.ROOT, "%.2f", cpu.median() / limitCpu.median())));
            }
            report.append('\n');
        }
        return report.toString();
    }

    /**
     * Runs the sender for one window and reads the receiver's processor time around it.
     * @param cpus the processors the sender is held to, as {@code taskset -c} takes them; {@code null} for any
     */
    private static Window window(Receiver receiver, int rate, int size, long millis, String cpus) throws IOException, InterruptedException {
        long cpuBefore = receiver.cpuNanos();
        List<String> command = new ArrayList<>(pinned(cpus));
        command.addAll(List.of(SENDER.toString(), Integer.toString(PORT), Integer.toString(rate), Integer.toString(size),
                Long.toString(millis)));
        Process sender = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String line = new String(sender.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        if (!sender.waitFor(millis + 30_000, TimeUnit.MILLISECONDS) || sender.exitValue() != 0) {
            throw new IOException("The sender failed against " + receiver.name + ": " + line);
        }
        long cpu = receiver.cpuNanos() - cpuBefore;
        Matcher matcher = SENDER_LINE.matcher(line);
        if (!matcher.find()) {
            throw new IOException("The sender said " + line);
        }
        return new Window(rate, Long.parseLong(matcher.group(1)), Long.parseLong(matcher.group(2)), cpu, Long.parseLong(matcher.group(3)));
    }

    /** @return the start of a command held to those processors ({@code taskset -c}), or nothing for {@code null} */
    private static List<String> pinned(String cpus) {
        return (cpus == null) ? List.of() : List.of("taskset", "-c", cpus);
    }

    /**
     * One window: what the sender sent and the receiver took.
     * @param cpuNanos the receiver's processor time over the window, its probes and pauses included
     */
    private record Window(int rate, long sent, long received, long cpuNanos, long lateTicks) {

        double lossPercent() {
            return (this.sent == 0) ? 0 : 100.0 * Math.max(0, this.sent - this.received) / this.sent;
        }

        double cpuNanosPerDatagram() {
            return (this.received == 0) ? Double.NaN : (double) this.cpuNanos / this.received;
        }

        String csv(int round, int size, String receiver, String window) {
            return String.format(Locale.ROOT, "%d,%d,%s,%s,%d,%d,%d,%.4f,%.1f,%.1f,%d%n", round, size, receiver, window, this.rate, this.sent,
                    this.received, lossPercent(), this.cpuNanos / 1e6, cpuNanosPerDatagram(), this.lateTicks);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%,d/s: sent %,d, received %,d (%.3f%% lost), %.0f ns of CPU a datagram, %d late ticks",
                    this.rate, this.sent, this.received, lossPercent(), cpuNanosPerDatagram(), this.lateTicks);
        }
    }

    /** A receiver in a process of its own, bound to {@link #PORT} and answering. */
    private static final class Receiver implements AutoCloseable {

        private static final Pattern DETAIL = Pattern.compile("\"detail\"\\s*:\\s*\"([^\"]*)\"");

        final String name;

        private final Process process;

        private final Path log;

        /** The sample's redis-server, started for it; {@code null} for the other receivers, or when one was already up. */
        private Process redis;

        private Receiver(String name, Process process, Path log) {
            this.name = name;
            this.process = process;
            this.log = log;
        }

        /** @param cpus the processors it is held to, as {@code taskset -c} takes them; {@code null} for any */
        static Receiver start(String name, Path log, String cpus) throws IOException, InterruptedException {
            List<String> command = new ArrayList<>(pinned(cpus));
            if (name.equals("c-recvmmsg")) {
                command.addAll(List.of(RECEIVER.toString(), Integer.toString(PORT)));
            }
            else {
                command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
                command.addAll(List.of("-Xms256m", "-Xmx1g", "-XX:+UseG1GC", "--enable-native-access=ALL-UNNAMED"));
                if (Runtime.version().feature() >= 24) {
                    command.add("--sun-misc-unsafe-memory-access=allow");
                }
                String extra = System.getenv("SERVER_JVM_OPTS");
                if (extra != null && !extra.isBlank()) {
                    // A profiler's agent, a GC log: as the echo harness adds them to every server JVM.
                    command.addAll(List.of(extra.trim().split("\\s+")));
                }
                if (name.startsWith("sockstate")) {
                    String jar = System.getenv().getOrDefault("SAMPLE_JAR", "sample-app/target/sample-app.jar");
                    if (!Files.isRegularFile(Path.of(jar))) {
                        throw new IOException("The sample's jar " + jar + " is missing: build it (mvn -B -q -DskipTests package) or set SAMPLE_JAR");
                    }
                    command.addAll(List.of("-jar", jar, "--sockstate.listeners.udp.port=" + PORT, "--logging.level.root=WARN",
                            "--logging.level.dev.sockstate=INFO"));
                    if (name.equals("sockstate-yield")) {
                        command.add("--sockstate.groups.udp.yield-before-wait=true");
                    }
                }
                else {
                    command.addAll(List.of("-cp", System.getProperty("java.class.path"), DatagramReceiver.class.getName(), name,
                            Integer.toString(PORT)));
                }
            }
            Process redis = name.startsWith("sockstate") ? startRedis(log, cpus) : null;
            Process process;
            try {
                process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                        .start();
            }
            catch (IOException ex) {
                stop(redis);
                throw ex;
            }
            Receiver receiver = new Receiver(name, process, log);
            receiver.redis = redis;
            try {
                receiver.awaitAnswer();
            }
            catch (IOException | RuntimeException ex) {
                receiver.close();
                throw ex;
            }
            return receiver;
        }

        /**
         * Starts Debian's {@code redis-server} on {@link #REDIS_PORT} for the sample's redis client, unless one
         * listens there already: without it the client connects again and logs every few seconds, on the
         * receiver's processor, and the compiles that follow stall its UDP worker now and then.
         * @param cpus the receiver's processors, which it is held to as well; {@code null} for any
         * @return the server started, {@code null} when one was already up
         */
        private static Process startRedis(Path log, String cpus) throws IOException, InterruptedException {
            if (accepts(REDIS_PORT)) {
                return null;
            }
            Process redis;
            try {
                List<String> command = new ArrayList<>(pinned(cpus));
                command.addAll(List.of("redis-server", "--port", Integer.toString(REDIS_PORT), "--bind", "127.0.0.1", "--save", "",
                        "--appendonly", "no"));
                redis = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            }
            catch (IOException ex) {
                throw new IOException("redis-server could not be started (Debian's redis-server package): the sample's redis client"
                        + " connects to it on port " + REDIS_PORT + ", and without it connects again and logs beside the listener measured", ex);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!accepts(REDIS_PORT)) {
                if (!redis.isAlive() || System.nanoTime() > deadline) {
                    stop(redis);
                    throw new IOException("redis-server did not listen on port " + REDIS_PORT + " within 10 s; see " + log);
                }
                Thread.sleep(50);
            }
            return redis;
        }

        /** @return whether something on this host accepts a TCP connection on the port */
        private static boolean accepts(int port) {
            try (Socket probe = new Socket()) {
                probe.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                return true;
            }
            catch (IOException ex) {
                return false;
            }
        }

        /** Asks the process to end (SIGTERM), and kills it when it has not within 10 s; nothing for {@code null}. */
        private static void stop(Process process) throws InterruptedException {
            if (process != null) {
                process.destroy();
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            }
        }

        /** Waits until a datagram sent to the port is answered. */
        private void awaitAnswer() throws IOException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
                probe.setSoTimeout(200);
                InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), PORT);
                while (System.nanoTime() < deadline) {
                    if (!this.process.isAlive()) {
                        throw new IOException(this.name + " ended before it answered; see " + this.log);
                    }
                    probe.send(new DatagramPacket(new byte[] { 'p' }, 1, target));
                    try {
                        probe.receive(new DatagramPacket(new byte[32], 32));
                        return;
                    }
                    catch (SocketTimeoutException ex) {
                        // not bound yet
                    }
                }
            }
            throw new IOException(this.name + " did not answer within 90 s; see " + this.log);
        }

        long cpuNanos() {
            return ProcStats.cpuNanos(this.process.pid());
        }

        /** Notes the sample's backend, as its actuator endpoint describes it. */
        void noteBackend(Map<String, List<String>> backends) {
            if (!this.name.startsWith("sockstate")) {
                return;
            }
            try {
                HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:8081/actuator/sockstate")).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString());
                Matcher matcher = DETAIL.matcher(response.body());
                if (matcher.find()) {
                    List<String> named = backends.computeIfAbsent(matcher.group(1), (description) -> new ArrayList<>());
                    if (!named.contains(this.name)) {
                        named.add(this.name);
                    }
                }
            }
            catch (IOException | InterruptedException ex) {
                throw new IllegalStateException("The sample's actuator endpoint did not answer: " + ex, ex);
            }
        }

        @Override
        public void close() throws IOException, InterruptedException {
            try {
                if (this.name.equals("c-recvmmsg") || this.name.startsWith("sockstate")) {
                    // They run until stopped (the sample stops gracefully on SIGTERM).
                    stop(this.process);
                }
                else {
                    // Netty's and the JDK's receivers end with their standard input.
                    this.process.getOutputStream().close();
                    if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
                        stop(this.process);
                    }
                }
            }
            finally {
                stop(this.redis);
            }
        }
    }
}
