package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rolling restart behind a real balancer: two instances of the packaged sample behind HAProxy, which
 * checks each one's readiness endpoint and sends a connection it could not place to the other
 * ({@code option redispatch}); clients in a closed loop through it, each sending a line to the echo
 * listener and waiting for it back, half of them on a new connection each time. Each instance is stopped with SIGTERM and started again in turn,
 * as a deployment replaces them; its shutdown delay keeps it serving until the balancer has taken it
 * out, so that no connection reaches a listener as it closes. No client sees a connection refused or reset, a wrong answer or a
 * request left hanging: a request is answered, or its connection ends cleanly (a FIN that crossed it,
 * the race every request/response protocol has), and the client sends it again on a new connection.
 * <p>
 * It needs Debian's haproxy ({@code .ci/run} installs it), and runs on Linux only (it reads the
 * ephemeral port range from {@code /proc}, and stops an instance with SIGTERM).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
@EnabledOnOs(OS.LINUX)
class RollingRestartIT {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static final int CLIENTS = 4;

    @TempDir
    Path directory;

    private final List<Instance> instances = new ArrayList<>();

    private Process balancer;

    private final Set<Integer> ports = new HashSet<>();

    private final ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);

    @AfterEach
    void stop() throws Exception {
        this.clients.shutdownNow();
        if (this.balancer != null) {
            this.balancer.destroy();
            if (!this.balancer.waitFor(10, TimeUnit.SECONDS)) {
                this.balancer.destroyForcibly();
            }
        }
        for (Instance instance : this.instances) {
            if (instance.sample != null) {
                instance.sample.close();
            }
        }
    }

    @Test
    void instancesRestartedOneAtATimeBehindHaproxyLoseNoRequestAndRefuseNoConnection() throws Exception {
        String haproxy = RealTools.require("haproxy").get(0);
        this.instances.add(new Instance("a", freePort(), freePort()));
        this.instances.add(new Instance("b", freePort(), freePort()));
        for (Instance instance : this.instances) {
            instance.start();
        }
        int frontend = freePort();
        int stats = freePort();
        Path config = this.directory.resolve("haproxy.cfg");
        List<String> lines = new ArrayList<>(List.of("global", "  maxconn 256", "  log stdout format raw local0", "defaults",
                "  log global", "  option tcplog", "  mode tcp", "  timeout connect 2s",
                "  timeout client 30s", "  timeout server 30s", "  timeout check 2s", "  retries 3", "  option redispatch 1",
                "frontend echo", "  bind 127.0.0.1:" + frontend, "  default_backend samples",
                "backend samples", "  balance roundrobin", "  option httpchk GET /actuator/health/readiness",
                "  http-check expect status 200", "  default-server inter 250ms fall 2 rise 2"));
        for (Instance instance : this.instances) {
            lines.add("  server " + instance.name + " 127.0.0.1:" + instance.echoPort + " check port " + instance.managementPort);
        }
        lines.addAll(List.of("listen stats", "  mode http", "  bind 127.0.0.1:" + stats, "  stats enable", "  stats uri /stats", ""));
        Files.writeString(config, String.join("\n", lines));
        Path log = this.directory.resolve("haproxy.log");
        this.balancer = new ProcessBuilder(haproxy, "-db", "-f", config.toString()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        for (Instance instance : this.instances) {
            awaitBalancerSees(stats, instance, "UP", log);
        }

        AtomicBoolean running = new AtomicBoolean(true);
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicLong answered = new AtomicLong();
        AtomicLong endedBeforeRead = new AtomicLong();
        List<Future<?>> loops = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            int client = i;
            loops.add(this.clients.submit(() -> closedLoop(client, frontend, running, failures, answered, endedBeforeRead)));
        }
        awaitAnswers(answered, 200, failures);
        for (Instance instance : this.instances) {
            instance.sample.close();
            assertThat(instance.sample.exitValue()).as("instance %s stopped on SIGTERM within 30 s", instance.name).isIn(0, 143);
            instance.sample = null;
            awaitBalancerSees(stats, instance, "DOWN", log);
            // Served by the other alone meanwhile.
            awaitAnswers(answered, answered.get() + 200, failures);
            long placedBefore = count(statsRow(stats, instance.name).get("stot"));
            instance.start();
            awaitBalancerSees(stats, instance, "UP", log);
            awaitAnswers(answered, answered.get() + 200, failures);
            // The clients that connect anew reach the restarted instance too.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (count(statsRow(stats, instance.name).get("stot")) <= placedBefore) {
                assertThat(System.nanoTime() - deadline).as("connections placed on %s once restarted", instance.name).isNegative();
                Thread.sleep(20);
            }
        }
        running.set(false);
        for (Future<?> loop : loops) {
            loop.get(30, TimeUnit.SECONDS);
        }
        assertThat(failures).as("what clients saw through the balancer (%d answered, %d requests met a clean close and were sent again)",
                answered.get(), endedBeforeRead.get()).isEmpty();
        Map<String, String> backend = statsRow(stats, "BACKEND");
        System.out.printf("Rolling restart: %d requests answered, %d met a clean close and were sent again; the balancer retried"
                + " %s connects, %s on the other instance; connections that ended otherwise than cleanly:%n%s%n", answered.get(),
                endedBeforeRead.get(), backend.get("wretr"), backend.get("wredis"), uncleanEnds(log));
        assertThat(count(backend.get("econ"))).as("connections the balancer could place on no instance; its output:%n%s",
                Files.readString(log)).isZero();
        for (Instance instance : this.instances) {
            Map<String, String> server = statsRow(stats, instance.name);
            assertThat(count(server.get("stot"))).as("connections the balancer placed on %s", instance.name).isPositive();
            // A close that resets (a request left unread, a reply cut) is a transfer the server aborted.
            assertThat(count(server.get("srv_abrt"))).as("transfers %s aborted; the connections that ended otherwise than"
                    + " cleanly:%n%s", instance.name, uncleanEnds(log)).isZero();
            assertThat(count(server.get("eresp"))).as("errors in %s's responses", instance.name).isZero();
        }
    }

    /**
     * Sends lines and reads each one back until told to stop; a connection that ends before the answer
     * (cleanly: the end of the stream) has the same line sent again on a new one. Anything else (a
     * refused connect, a reset, a wrong or late answer) is a failure.
     */
    private static void closedLoop(int client, int port, AtomicBoolean running, Queue<String> failures, AtomicLong answered,
            AtomicLong endedBeforeRead) {
        long sequence = 0;
        while (running.get() && failures.isEmpty()) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
                socket.setSoTimeout(10_000);
                OutputStream out = socket.getOutputStream();
                BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
                while (running.get()) {
                    String request = "client " + client + " request " + sequence;
                    try {
                        out.write((request + "\n").getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                    }
                    catch (IOException ex) {
                        failures.add(request + ": the write failed: " + ex);
                        return;
                    }
                    String answer = in.readLine();
                    if (answer == null) {
                        // A clean end before the request was read: sent again on a new connection.
                        endedBeforeRead.incrementAndGet();
                        break;
                    }
                    if (!answer.equals(request)) {
                        failures.add(request + ": answered " + answer);
                        return;
                    }
                    answered.incrementAndGet();
                    sequence++;
                    if (client % 2 == 1) {
                        // Half the clients connect anew for each request: the balancer places new connections throughout.
                        break;
                    }
                }
            }
            catch (ConnectException ex) {
                failures.add("client " + client + ": a connection refused: " + ex);
            }
            catch (SocketTimeoutException ex) {
                failures.add("client " + client + " request " + sequence + ": no answer within 10 s");
            }
            catch (IOException ex) {
                failures.add("client " + client + " request " + sequence + ": " + ex);
            }
        }
    }

    private static void awaitAnswers(AtomicLong answered, long count, Queue<String> failures) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (answered.get() < count && failures.isEmpty()) {
            assertThat(System.nanoTime() - deadline).as("%d answers (%d so far)", count, answered.get()).isNegative();
            Thread.sleep(20);
        }
        assertThat(failures).isEmpty();
    }

    /**
     * @return the lines of HAProxy's connection log whose termination state is not {@code --} (a
     * clean end): {@code SD}, say, a server that reset the connection once data flowed
     */
    private static String uncleanEnds(Path log) throws IOException {
        return Files.readAllLines(log).stream().filter((line) -> line.matches("\\S+:\\d+ \\[.* samples/.*") && !line.matches(".* -- \\d+/.*"))
                .collect(Collectors.joining("\n"));
    }

    /** Waits until HAProxy's statistics give the instance the status (UP, DOWN), within 60 s. */
    private static void awaitBalancerSees(int stats, Instance instance, String status, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String seen = null;
        while (System.nanoTime() < deadline) {
            Map<String, String> row = statsRow(stats, instance.name);
            seen = (row != null) ? row.get("status") : null;
            if (status.equals(seen)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("HAProxy sees " + instance.name + " as " + seen + ", not " + status + "; its output:\n"
                + Files.readString(log) + "\nthe instance's:\n" + ((instance.sample != null) ? instance.sample.output() : "(stopped)"));
    }

    /** @return a server's row of HAProxy's CSV statistics by column name (BACKEND: the backend's), {@code null} before it answers */
    private static Map<String, String> statsRow(int stats, String server) throws Exception {
        HttpResponse<String> response;
        try {
            response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + stats + "/stats;csv"))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
        }
        catch (ConnectException ex) {
            return null;
        }
        List<String> lines = response.body().lines().toList();
        if (lines.isEmpty()) {
            return null;
        }
        String[] names = lines.get(0).replaceFirst("^# ", "").split(",", -1);
        return lines.stream().skip(1).map((line) -> line.split(",", -1))
                .filter((row) -> row.length >= names.length - 1 && row[0].equals("samples") && row[1].equals(server)).findFirst()
                .map((row) -> {
                    Map<String, String> columns = new HashMap<>();
                    for (int i = 0; i < Math.min(names.length, row.length); i++) {
                        columns.put(names[i], row[i]);
                    }
                    return columns;
                }).orElse(null);
    }

    /** @return a count from HAProxy's statistics, where an empty field is none */
    private static long count(String field) {
        assertThat(field).as("a column of HAProxy's statistics").isNotNull();
        return field.isEmpty() ? 0 : Long.parseLong(field);
    }

    /**
     * @return a free port below the system's ephemeral range: an instance binds it again when it
     * restarts, and no connection's local port (the balancer's, the clients', the other instance's
     * ephemeral listeners) may take it meanwhile
     */
    private int freePort() throws IOException {
        int ephemeralLow = 32768;
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        if (Files.exists(range)) {
            // (A file of /proc tells no size: read to its end, not as far as its size says.)
            try (InputStream in = Files.newInputStream(range)) {
                ephemeralLow = Integer.parseInt(new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim().split("\\s+")[0]);
            }
        }
        assertThat(ephemeralLow).as("the ephemeral range's start").isGreaterThan(2048);
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(Math.max(1024, ephemeralLow - 10_000), ephemeralLow);
            if (this.ports.contains(port)) {
                continue;
            }
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress("127.0.0.1", port));
                this.ports.add(port);
                return port;
            }
            catch (IOException ex) {
                // taken: another one
            }
        }
        throw new IOException("No free port below " + ephemeralLow);
    }

    /** One instance of the sample: its echo and management ports stay the same across its restarts. */
    private static final class Instance {

        final String name;

        final int echoPort;

        final int managementPort;

        PackagedSample sample;

        Instance(String name, int echoPort, int managementPort) {
            this.name = name;
            this.echoPort = echoPort;
            this.managementPort = managementPort;
        }

        void start() throws Exception {
            // The delay outlasts the balancer's two failed checks 250 ms apart: it stops placing connections before the listeners close.
            this.sample = new PackagedSample(List.of(), Map.of("sockstate.listeners.echo.port", String.valueOf(this.echoPort),
                    "management.server.port", String.valueOf(this.managementPort), "sockstate.shutdown.delay", "1s"));
            assertThat(this.sample.boundPort("echo")).as("instance %s's echo listener; its output:%n%s", this.name, this.sample.output())
                    .isEqualTo(this.echoPort);
        }
    }
}
