package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.sockstate.port.MisbehavingBackend;
import dev.sockstate.port.OpenDescriptors;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerBindException;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.WorkerGroupState;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import dev.sockstate.server.observer.ServerObserver.DequeueOutcome;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.observer.WorkerObserver;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Starting, stopping and churn: nothing lost, nothing left behind. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LifecycleTest {

    @Test
    void startingAndStoppingAHundredTimesLeavesNoDescriptorThreadOrNativeMemoryBehind() throws Exception {
        OpenDescriptors.warmUpJdkSockets();
        int descriptors = OpenDescriptors.count();
        long directBefore = directMemoryAfterGc();
        for (int i = 0; i < 100; i++) {
            SocketServer server = new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of("default", 2)),
                    List.of(ServerFixture.tcp("echo").handler(new EchoHandler()).build(),
                            ServerFixture.udp("udp").handler(UdpServingTest::reflect).build()),
                    ServerObserver.NONE);
            server.start();
            if (i % 10 == 0) {
                try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.listener("echo").portNumber())) {
                    client.setSoTimeout(5000);
                    client.getOutputStream().write(1);
                    assertThat(client.getInputStream().read()).isEqualTo(1);
                }
            }
            server.stop(Duration.ofSeconds(5));
        }
        assertThat(OpenDescriptors.count()).as("descriptors: %s", OpenDescriptors.networkDescriptors()).isEqualTo(descriptors);
        assertThat(sockstateThreads()).isEmpty();
        // 100 servers of two workers held 200 read buffers of 64 KiB (13 MiB): none may stay reachable.
        assertThat(directMemoryAfterGc() - directBefore).as("direct memory still held").isLessThan(1024 * 1024);
    }

    private static long directMemoryAfterGc() throws InterruptedException {
        java.lang.management.BufferPoolMXBean direct = java.lang.management.ManagementFactory
                .getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class).stream()
                .filter((pool) -> pool.getName().equals("direct")).findFirst().orElseThrow();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(50);
            used = Math.min(used, direct.getMemoryUsed());
        }
        return used;
    }

    @Test
    @BlocksWorkers("a handler works while the stop begins")
    void aGracefulStopLetsRequestsInFlightFinish() throws Exception {
        assumeFalse(MisbehavingBackend.asked(), "a stop answers what arrived before it, read until the first would-block: a false one says the rest came after");
        ConnectionHandler slow = (connection, data) -> {
            Thread.sleep(300);
            connection.write(data);
        };
        SocketServer server = new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of("default", 2)),
                List.of(ServerFixture.tcp("slow").handler(slow).build()), ServerObserver.NONE);
        server.start();
        int clients = 6;
        List<Socket> sockets = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            Socket client = new Socket(InetAddress.getLoopbackAddress(), server.listener("slow").portNumber());
            client.setSoTimeout(10_000);
            client.getOutputStream().write(("request " + i).getBytes(StandardCharsets.UTF_8));
            sockets.add(client);
        }
        try {
            Thread.sleep(50);
            server.stop(Duration.ofSeconds(10));
            for (int i = 0; i < clients; i++) {
                InputStream in = sockets.get(i).getInputStream();
                assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).as("the reply, then the close")
                        .isEqualTo("request " + i);
            }
        }
        finally {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
        assertThat(sockstateThreads()).isEmpty();
    }

    @Test
    void thousandsOfConnectCloseCyclesNeverRouteAnEventToTheWrongConnection() throws Exception {
        AtomicReference<String> misrouted = new AtomicReference<>();
        ConnectionHandler handler = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                String text = StandardCharsets.UTF_8.decode(data.duplicate()).toString();
                Object first = connection.attributes().putIfAbsent("client", text.substring(0, text.indexOf(':') + 1));
                if (first != null && !text.startsWith((String) first)) {
                    misrouted.compareAndSet(null, "connection " + connection.id() + " of " + first + " got " + text);
                }
                connection.write(data);
            }
        };
        SocketServer server = new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of("default", 2)),
                List.of(ServerFixture.tcp("churn").handler(handler).build()), ServerObserver.NONE);
        server.start();
        int port = server.listener("churn").portNumber();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        AtomicInteger cycles = new AtomicInteger();
        long deadline = System.currentTimeMillis() + 20_000;
        List<Future<?>> running = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int thread = t;
            running.add(threads.submit(() -> {
                for (int i = 0; i < 400 && System.currentTimeMillis() < deadline; i++) {
                    String id = thread + "-" + i + ":";
                    try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                        client.setSoTimeout(5000);
                        byte[] message = (id + "x").getBytes(StandardCharsets.UTF_8);
                        client.getOutputStream().write(message);
                        byte[] reply = client.getInputStream().readNBytes(message.length);
                        assertThat(new String(reply, StandardCharsets.UTF_8)).isEqualTo(id + "x");
                        if (i % 3 == 0) {
                            client.setSoLinger(true, 0);
                        }
                        else if (i % 3 == 1) {
                            client.getOutputStream().write((id + "y").getBytes(StandardCharsets.UTF_8));
                        }
                    }
                    cycles.incrementAndGet();
                }
                return null;
            }));
        }
        for (Future<?> future : running) {
            future.get();
        }
        threads.shutdown();
        assertThat(cycles.get()).isGreaterThan(1000);
        assertThat(misrouted.get()).isNull();
        ServerFixture.await(() -> server.listener("churn").activeConnections() == 0, "every connection is closed");
        server.stop(Duration.ofSeconds(5));
    }

    @Test
    void aStartThatFailsAsksTheObserverForNoWorkerObserver() throws Exception {
        AtomicInteger workerObservers = new AtomicInteger();
        ServerObserver counting = new ServerObserver() {

            @Override
            public WorkerObserver worker(String group, int worker) {
                workerObservers.incrementAndGet();
                return WorkerObserver.NONE;
            }
        };
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            SocketServer server = new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of("default", 2)),
                    List.of(ServerFixture.tcp("taken").portNumber(taken.getLocalPort()).reuseAddress(false)
                            .handler(new EchoHandler()).build()),
                    counting);
            assertThatExceptionOfType(ListenerBindException.class).isThrownBy(server::start);
            assertThatExceptionOfType(ListenerBindException.class).isThrownBy(server::start);
        }
        assertThat(workerObservers.get()).as("worker observers asked for by two failed starts").isZero();
    }

    @Test
    @BlocksWorkers("its observer holds the dying worker until the test looked")
    void aWorkerThatDiesIsReportedToItsObserverAndShownDead() throws Exception {
        AtomicInteger deaths = new AtomicInteger();
        // The dying thread is held where it reports its death: what the state shows then is what a
        // health check that the report prompted would read.
        CountDownLatch checked = new CountDownLatch(1);
        ServerObserver fatal = new ServerObserver() {

            @Override
            public WorkerObserver worker(String group, int worker) {
                return new WorkerObserver() {

                    @Override
                    public void dequeued(int notifications, DequeueOutcome outcome, long waitNanos) {
                        throw new AssertionError("an observer that fails");
                    }

                    @Override
                    public void died(Throwable failure) {
                        deaths.incrementAndGet();
                        try {
                            checked.await(10, TimeUnit.SECONDS);
                        }
                        catch (InterruptedException ex) {
                            Thread.currentThread().interrupt();
                        }
                    }
                };
            }
        };
        SocketServer server = new SocketServer(ServerFixture.backend(), List.of(new WorkerGroupSettings("default", 1, 64,
                Duration.ofMillis(50), 64 * 1024, "sockstate-")), List.of(ServerFixture.tcp("echo").handler(new EchoHandler()).build()),
                fatal);
        server.start();
        try {
            ServerFixture.await(() -> deaths.get() == 1, "the worker's death is reported");
            WorkerGroupState.WorkerState worker = server.workerGroups().get(0).workers().get(0);
            assertThat(worker.alive()).isFalse();
            assertThat(worker.failure()).contains("an observer that fails");
            assertThat(server.workerGroups().get(0).isHealthy()).isFalse();
        }
        finally {
            checked.countDown();
            server.stop(Duration.ofSeconds(1));
        }
    }

    @Test
    void aPortInUseNamesTheListenerAndThePortAndLeavesNothingOpen() throws Exception {
        OpenDescriptors.warmUpJdkSockets();
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int descriptors = OpenDescriptors.count();
            SocketServer server = new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of("default", 1)),
                    List.of(ServerFixture.tcp("first").handler(new EchoHandler()).build(),
                            ServerFixture.tcp("second").portNumber(taken.getLocalPort()).reuseAddress(false).handler(new EchoHandler()).build()),
                    ServerObserver.NONE);
            assertThatExceptionOfType(ListenerBindException.class).isThrownBy(server::start)
                    .withMessageContaining("Listener 'second' could not bind to 127.0.0.1 port " + taken.getLocalPort())
                    .satisfies((ex) -> assertThat(ex.isPortInUse()).isTrue());
            assertThat(server.isRunning()).isFalse();
            assertThat(OpenDescriptors.count()).isEqualTo(descriptors);
            assertThat(sockstateThreads()).isEmpty();
        }
    }

    @Test
    void aUdpPortInUseFailsStartupNamingTheListenerAndLeavesNothingOpenOnPortsPerWorker() throws Exception {
        OpenDescriptors.warmUpJdkSockets();
        try (java.net.DatagramSocket taken = new java.net.DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            int descriptors = OpenDescriptors.count();
            SocketServer server = new SocketServer(ServerFixture.backend(),
                    List.of(WorkerGroupSettings.of("default", 2).withPortPerWorker(true)),
                    List.of(ServerFixture.tcp("first").handler(new EchoHandler()).build(),
                            ServerFixture.udp("udp").portNumber(taken.getLocalPort()).reuseAddress(false)
                                    .handler(UdpServingTest::reflect).build()),
                    ServerObserver.NONE);
            // The datagram socket fails its bind before it is armed, beside a TCP listener already bound:
            // the start-up undoes both, on a group of two ports.
            assertThatExceptionOfType(ListenerBindException.class).isThrownBy(server::start)
                    .withMessageContaining("Listener 'udp' could not bind");
            assertThat(server.isRunning()).isFalse();
            assertThat(OpenDescriptors.count()).as("descriptors: %s", OpenDescriptors.networkDescriptors()).isEqualTo(descriptors);
            assertThat(sockstateThreads()).isEmpty();
        }
    }

    @Test
    void aPollReplacementListenerRunsPersistentOnItsOwnSingleWorkerGroup() throws Exception {
        EchoHandler handler = new EchoHandler();
        SocketServer server = new SocketServer(ServerFixture.backend(),
                List.of(WorkerGroupSettings.of("default", 2), WorkerGroupSettings.of("poll", 1)),
                List.of(ServerFixture.tcp("poll").trigger(Trigger.LEVEL_PERSISTENT).group("poll").handler(handler).build(),
                        ServerFixture.tcp("edge").trigger(Trigger.EDGE_PERSISTENT).group("poll").handler(handler).build()),
                ServerObserver.NONE);
        server.start();
        try {
            for (String listener : List.of("poll", "edge")) {
                try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.listener(listener).portNumber())) {
                    client.setSoTimeout(5000);
                    byte[] payload = new byte[300_000];
                    new java.util.Random(3).nextBytes(payload);
                    Thread writer = new Thread(() -> {
                        try {
                            client.getOutputStream().write(payload);
                        }
                        catch (Exception ex) {
                            throw new IllegalStateException(ex);
                        }
                    });
                    writer.start();
                    assertThat(client.getInputStream().readNBytes(payload.length)).isEqualTo(payload);
                    writer.join();
                }
            }
        }
        finally {
            server.stop(Duration.ofSeconds(5));
        }
    }

    /**
     * @return the names of the live threads a server made (workers, its timer); not the process-wide
     * pool of TLS delegated tasks, shared by every server and ended after a minute without work
     */
    static List<String> sockstateThreads() {
        List<String> names = new ArrayList<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            String name = thread.getName();
            if (name.startsWith("sockstate-") && !name.startsWith("sockstate-tls-task-") && thread.isAlive()) {
                names.add(thread.getName());
            }
        }
        return names;
    }
}
