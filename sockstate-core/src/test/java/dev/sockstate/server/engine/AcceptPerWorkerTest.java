package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sockstate.port.MisbehavingBackend;
import dev.sockstate.port.winsock.WinsockBackend;
import dev.sockstate.server.AcceptMode;
import dev.sockstate.server.BoundListener;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Setting;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.observer.ServerObserver;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Accept per worker: a listening socket on each worker's port, bound with SO_REUSEPORT to one
 * address; the kernel spreads the connections over them and the worker that accepts one serves it.
 * Windows (the emulator) has no SO_REUSEPORT: one socket accepts, as with accept shared.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class AcceptPerWorkerTest {

    private final ServerFixture fixture = new ServerFixture();

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws Exception {
        this.threads.shutdownNow();
        this.fixture.close();
    }

    static List<WorkerGroupSettings> portPerWorker(int workers) {
        return List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, workers).withPortPerWorker(true));
    }

    static ListenerSettings.Builder perWorker(String name) {
        return ServerFixture.tcp(name).accept(AcceptMode.PER_WORKER);
    }

    /** @return whether the backend the tests run on spreads connections over sockets sharing a port */
    static boolean spreads() {
        return !WinsockBackend.NAME.equals(ServerFixture.backend().name());
    }

    /** Echoes, and records the threads that opened and served each connection. */
    private static final class ThreadRecordingEcho implements ConnectionHandler {

        final Map<Long, String> openedOn = new ConcurrentHashMap<>();

        final Map<Long, Set<String>> servedOn = new ConcurrentHashMap<>();

        @Override
        public void onOpen(Connection connection) {
            this.openedOn.put(connection.id(), Thread.currentThread().getName());
        }

        @Override
        public void onData(Connection connection, ByteBuffer data) {
            this.servedOn.computeIfAbsent(connection.id(), (id) -> ConcurrentHashMap.newKeySet()).add(Thread.currentThread().getName());
            connection.write(data);
        }
    }

    private static void roundTrip(Socket client, int value) throws Exception {
        client.getOutputStream().write(value);
        assertThat(client.getInputStream().read()).isEqualTo(value);
    }

    @Test
    void everyWorkerAcceptsFromItsOwnSocketOnOneEphemeralPortAndServesTheConnectionsItAccepted() throws Exception {
        assumeTrue(spreads(), "the backend spreads connections over sockets sharing a port");
        ThreadRecordingEcho handler = new ThreadRecordingEcho();
        SocketServer server = this.fixture.start(portPerWorker(4), perWorker("echo").portNumber(0).handler(handler).build());
        assertThat(server.ownSockets("echo")).as("listening sockets").isEqualTo(4);
        BoundListener bound = server.listener("echo");
        assertThat(bound.portNumber()).as("the port the first socket got, shared by the others").isPositive();
        for (int c = 0; c < 64; c++) {
            roundTrip(this.fixture.connect(server, "echo"), c);
        }
        assertThat(Set.copyOf(handler.openedOn.values())).as("workers that accepted connections").hasSize(4);
        handler.openedOn.forEach((id, opener) -> assertThat(handler.servedOn.get(id)).as("threads serving connection %d", id)
                .containsExactly(opener));
        BoundListener after = server.listener("echo");
        assertThat(after.accepted()).isEqualTo(64);
        assertThat(after.registrations()).as("the connections' and the four listening sockets'").isEqualTo(64 + 4);
        assertThat(after.serving()).isTrue();
    }

    @Test
    void aFixedPortIsSharedByEveryWorkersSocketTheSameWay() throws Exception {
        assumeTrue(spreads(), "the backend spreads connections over sockets sharing a port");
        int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        ThreadRecordingEcho handler = new ThreadRecordingEcho();
        SocketServer server = this.fixture.start(portPerWorker(2), perWorker("echo").portNumber(port).handler(handler).build());
        assertThat(server.listener("echo").portNumber()).isEqualTo(port);
        for (int c = 0; c < 32; c++) {
            roundTrip(this.fixture.connect(server, "echo"), c);
        }
        assertThat(Set.copyOf(handler.openedOn.values())).as("workers that accepted connections").hasSize(2);
    }

    @Test
    void onWindowsOneListeningSocketAcceptsForEveryWorkerAsWithAcceptShared() throws Exception {
        assumeTrue(!spreads(), "a backend without SO_REUSEPORT (winsock)");
        ThreadRecordingEcho handler = new ThreadRecordingEcho();
        SocketServer server = this.fixture.start(portPerWorker(3), perWorker("echo").handler(handler).build());
        assertThat(server.ownSockets("echo")).as("listening sockets").isEqualTo(1);
        for (int c = 0; c < 9; c++) {
            roundTrip(this.fixture.connect(server, "echo"), c);
        }
        assertThat(Set.copyOf(handler.openedOn.values())).as("the one accepting worker").hasSize(1);
        assertThat(handler.servedOn.values().stream().flatMap(Set::stream).distinct()).as("workers serving, in turn").hasSize(3);
    }

    @Test
    void theMaximumHoldsWhileEveryWorkerAcceptsAtOnce() throws Exception {
        int maximum = 8;
        int clients = 240;
        AtomicInteger open = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        ConnectionHandler handler = new ConnectionHandler() {
            @Override
            public void onOpen(Connection connection) {
                peak.accumulateAndGet(open.incrementAndGet(), Math::max);
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
            }

            @Override
            public void onClose(Connection connection) {
                open.decrementAndGet();
            }
        };
        SocketServer server = this.fixture.start(portPerWorker(4), perWorker("echo").maxConnections(maximum).handler(handler).build());
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.listener("echo").portNumber());
        // Eight threads connect at once, so that the workers accept at once, each from its own socket.
        CountDownLatch go = new CountDownLatch(1);
        List<Future<List<Socket>>> connecting = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            connecting.add(this.threads.submit(() -> {
                go.await();
                List<Socket> sockets = new ArrayList<>();
                for (int c = 0; c < clients / 8; c++) {
                    Socket socket = new Socket();
                    socket.connect(address, 5000);
                    sockets.add(socket);
                }
                return sockets;
            }));
        }
        go.countDown();
        List<Socket> sockets = new ArrayList<>();
        try {
            for (Future<List<Socket>> future : connecting) {
                sockets.addAll(future.get(30, TimeUnit.SECONDS));
            }
            ServerFixture.await(() -> server.listener("echo").accepted() + server.listener("echo").rejected() == clients,
                    "every connection accepted or rejected");
            BoundListener bound = server.listener("echo");
            assertThat(bound.accepted()).as("connections admitted").isEqualTo(maximum);
            assertThat(bound.rejected()).isEqualTo(clients - maximum);
            assertThat(bound.activeConnections()).isEqualTo(maximum);
            assertThat(peak.get()).as("connections open at once").isLessThanOrEqualTo(maximum);
        }
        finally {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }

    @Test
    void eachNotificationOfAWorkersSocketAcceptsWhatIsPendingUntilAnAcceptFindsTheBacklogEmpty() throws Exception {
        assumeFalse(MisbehavingBackend.asked(), "measures the real backend's own costs: spurious notifications add accepts");
        assumeTrue(spreads(), "the backend spreads connections over sockets sharing a port");
        AtomicInteger accepts = new AtomicInteger();
        SocketServer server = this.fixture.start(AcceptPerWorkerFailureTest.withSockets(ServerFixture.backend(),
                (real, method, arguments) -> {
                    if (method.equals("accept")) {
                        accepts.incrementAndGet();
                    }
                }), portPerWorker(2), ServerObserver.NONE, perWorker("echo").handler(new EchoHandler()).build());
        // One at a time: each round accepts the one pending and tries once more, finding the backlog empty.
        for (int c = 0; c < 32; c++) {
            try (Socket client = this.fixture.connect(server, "echo")) {
                roundTrip(client, c);
            }
        }
        int sequential = accepts.get();
        // Then a burst, several pending at once: a round takes all those pending when it runs.
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.listener("echo").portNumber());
        List<Future<Integer>> burst = new ArrayList<>();
        for (int t = 0; t < 32; t++) {
            int value = t;
            burst.add(this.threads.submit(() -> {
                try (Socket client = new Socket()) {
                    client.connect(address, 5000);
                    roundTrip(client, value);
                }
                return value;
            }));
        }
        for (Future<Integer> done : burst) {
            done.get(30, TimeUnit.SECONDS);
        }
        assertThat(server.listener("echo").accepted()).isEqualTo(64);
        // Two tries for each of the first 32; for the burst, one for each connection and one a round, at most
        // one round a connection. One accept a notification would try 64 in all. A spurious readiness (the
        // nio backend's selector reports one now and then) costs one more.
        assertThat(sequential).as("accepts tried for 32 connections one at a time").isBetween(64, 64 + 8);
        assertThat(accepts.get() - sequential).as("accepts tried for a burst of 32").isBetween(33, 64 + 8);
    }

    @Test
    void aGroupWhoseWorkersShareOnePortIsRefusedNamingTheGroupAndTheWayOut() {
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of("default", 2)),
                        List.of(perWorker("echo").handler(new EchoHandler()).build()), ServerObserver.NONE))
                .withMessageContaining("Listener 'echo'").withMessageContaining("worker group 'default'")
                .withMessageContaining("portPerWorker").satisfies((ex) -> assertThat(ex.setting()).isEqualTo(Setting.ACCEPT));
    }

    @Test
    void aGroupOfOneWorkerAcceptsOnOneSocket() throws Exception {
        SocketServer server = this.fixture.start(List.of(WorkerGroupSettings.of("default", 1)),
                perWorker("echo").handler(new EchoHandler()).build());
        assertThat(server.ownSockets("echo")).isEqualTo(1);
        roundTrip(this.fixture.connect(server, "echo"), 'x');
    }

    @Test
    void aUdpListenerOrNoModeIsRefusedNamingTheListenerAndTheSetting() {
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ListenerSettings.udp("datagrams").accept(AcceptMode.PER_WORKER).handler(UdpServingTest::reflect).build())
                .withMessage("Listener 'datagrams': accept is PER_WORKER, it must be SHARED for a UDP listener (it accepts no connections)")
                .satisfies((ex) -> assertThat(ex.setting()).isEqualTo(Setting.ACCEPT));
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ServerFixture.tcp("echo").accept(null).handler(new EchoHandler()).build())
                .withMessageContaining("Listener 'echo': accept is null").satisfies((ex) -> assertThat(ex.setting()).isEqualTo(Setting.ACCEPT));
    }
}
