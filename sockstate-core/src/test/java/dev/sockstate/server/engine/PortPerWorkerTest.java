package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.port.OpenDescriptors;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import dev.sockstate.server.observer.ServerObserver;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Worker groups with a port per worker: each socket pinned to one worker, the workers used in turn. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PortPerWorkerTest {

    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    private static List<WorkerGroupSettings> portPerWorker(int workers) {
        return List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, workers).withPortPerWorker(true));
    }

    /** Echoes, and records every thread that handled each connection. */
    private static final class ThreadRecordingEcho implements ConnectionHandler {

        final Map<Long, Set<String>> threadsByConnection = new ConcurrentHashMap<>();

        @Override
        public void onData(Connection connection, ByteBuffer data) {
            this.threadsByConnection.computeIfAbsent(connection.id(), (id) -> ConcurrentHashMap.newKeySet())
                    .add(Thread.currentThread().getName());
            connection.write(data);
        }
    }

    private static void roundTrips(Socket client, int count, int seed) throws Exception {
        Random random = new Random(seed);
        OutputStream out = client.getOutputStream();
        InputStream in = client.getInputStream();
        for (int i = 0; i < count; i++) {
            byte[] message = new byte[1 + random.nextInt(3000)];
            random.nextBytes(message);
            out.write(message);
            byte[] echoed = in.readNBytes(message.length);
            assertThat(Arrays.equals(message, echoed)).as("round trip %d of %d bytes", i, message.length).isTrue();
        }
    }

    @Test
    void eachConnectionStaysOnOneWorkerAndTheConnectionsAreSharedOutOverAllWorkers() throws Exception {
        ThreadRecordingEcho handler = new ThreadRecordingEcho();
        SocketServer server = this.fixture.start(portPerWorker(3), ServerFixture.tcp("echo").handler(handler).build());
        List<Socket> clients = new ArrayList<>();
        for (int c = 0; c < 9; c++) {
            clients.add(this.fixture.connect(server, "echo"));
        }
        for (int round = 0; round < 40; round++) {
            for (int c = 0; c < clients.size(); c++) {
                roundTrips(clients.get(c), 1, round * 100 + c);
            }
        }
        assertThat(handler.threadsByConnection).hasSize(9);
        handler.threadsByConnection.forEach((id, threads) -> assertThat(threads).as("threads of connection %d", id).hasSize(1));
        Map<String, Integer> connectionsPerWorker = new ConcurrentHashMap<>();
        handler.threadsByConnection.values().forEach((threads) -> connectionsPerWorker.merge(threads.iterator().next(), 1, Integer::sum));
        assertThat(connectionsPerWorker).as("connections per worker").hasSize(3).allSatisfy((worker, count) -> assertThat(count).isEqualTo(3));
    }

    @Test
    void everyPersistentTriggerMayServeAManyWorkerGroupWithAPortPerWorker() throws Exception {
        SocketServer server = this.fixture.start(portPerWorker(2),
                ServerFixture.tcp("edge").trigger(Trigger.EDGE_PERSISTENT).handler(new EchoHandler()).build(),
                ServerFixture.tcp("level").trigger(Trigger.LEVEL_PERSISTENT).handler(new EchoHandler()).build(),
                ServerFixture.tcp("exclusive").exclusiveEdge(true).handler(new EchoHandler()).build(),
                ServerFixture.udp("udp").trigger(Trigger.EDGE_PERSISTENT).handler(UdpServingTest::reflect).build());
        for (String listener : List.of("edge", "level", "exclusive")) {
            for (int c = 0; c < 4; c++) {
                roundTrips(this.fixture.connect(server, listener), 200, c);
            }
        }
        try (java.net.DatagramSocket udp = new java.net.DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            udp.setSoTimeout(5000);
            byte[] payload = "datagram".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            udp.send(new java.net.DatagramPacket(payload, payload.length, InetAddress.getLoopbackAddress(),
                    server.listener("udp").portNumber()));
            java.net.DatagramPacket reply = new java.net.DatagramPacket(new byte[64], 64);
            udp.receive(reply);
            assertThat(reply.getLength()).isEqualTo(payload.length);
        }
    }

    @Test
    void aPersistentTriggerOnWorkersSharingOnePortIsRefusedNamingTheWayOut() {
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of("default", 2)),
                        List.of(ServerFixture.tcp("edge").trigger(Trigger.EDGE_PERSISTENT).handler(new EchoHandler()).build()),
                        ServerObserver.NONE))
                .withMessageContaining("portPerWorker").withMessageContaining("'edge'");
    }

    @Test
    @BlocksWorkers("holds one worker busy with a connection")
    void aWorkerBusyWithOneConnectionDelaysOnlyTheConnectionsOfItsOwnPort() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        ConnectionHandler handler = (connection, data) -> {
            if (data.get(data.position()) == 'B') {
                release.await(30, TimeUnit.SECONDS);
            }
            connection.write(data);
        };
        SocketServer server = this.fixture.start(portPerWorker(2), ServerFixture.tcp("echo").handler(handler).build());
        // The listener took the first port; the connections then take the second, the first, the second...
        // The first sends at once, so its byte is often there before the accepting worker (the first
        // port's) has armed it on the second port: it must still be handled on the second port's worker.
        Socket first = this.fixture.connect(server, "echo");
        first.getOutputStream().write('B');
        Socket second = this.fixture.connect(server, "echo");
        Socket third = this.fixture.connect(server, "echo");
        // The third shares the blocked worker's port, the second does not.
        second.getOutputStream().write('x');
        assertThat(second.getInputStream().read()).isEqualTo('x');
        third.getOutputStream().write('y');
        third.setSoTimeout(300);
        assertThatExceptionOfType(java.net.SocketTimeoutException.class).isThrownBy(() -> third.getInputStream().read());
        release.countDown();
        assertThat(first.getInputStream().read()).isEqualTo('B');
        third.setSoTimeout(5000);
        assertThat(third.getInputStream().read()).isEqualTo('y');
    }

    @Test
    void aLargeGreetingWrittenFromAnotherThreadAsEachConnectionOpensArrivesWholeWithoutTheClientSending()
            throws Exception {
        byte[] greeting = new byte[1024 * 1024];
        new Random(7).nextBytes(greeting);
        java.util.concurrent.ExecutorService application = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            // The write comes from a third thread while the accepting worker arms the connection on
            // another worker's port; the greeting is larger than the socket takes at once, so the rest
            // goes out only if OUT ends up armed on the connection's own port.
            ConnectionHandler handler = new ConnectionHandler() {
                @Override
                public void onOpen(Connection connection) {
                    application.execute(() -> connection.write(ByteBuffer.wrap(greeting)));
                }

                @Override
                public void onData(Connection connection, ByteBuffer data) {
                }
            };
            SocketServer server = this.fixture.start(portPerWorker(2), ServerFixture.tcp("greet").handler(handler).build());
            for (int c = 0; c < 40; c++) {
                Socket client = this.fixture.connect(server, "greet");
                byte[] received = client.getInputStream().readNBytes(greeting.length);
                assertThat(Arrays.equals(greeting, received)).as("greeting of connection %d", c).isTrue();
                client.close();
            }
        }
        finally {
            application.shutdownNow();
        }
    }

    @Test
    void startingAndStoppingLeavesNoPortDescriptorOrThreadBehind() throws Exception {
        OpenDescriptors.warmUpJdkSockets();
        int descriptors = OpenDescriptors.count();
        for (int i = 0; i < 20; i++) {
            SocketServer server = new SocketServer(ServerFixture.backend(), portPerWorker(4),
                    List.of(ServerFixture.tcp("echo").handler(new EchoHandler()).build()), ServerObserver.NONE);
            server.start();
            assertThat(server.workerGroups().get(0).portOpen()).isTrue();
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.listener("echo").portNumber())) {
                client.setSoTimeout(5000);
                roundTrips(client, 3, i);
            }
            server.stop(Duration.ofSeconds(5));
        }
        assertThat(OpenDescriptors.count()).as("descriptors: %s", OpenDescriptors.networkDescriptors()).isEqualTo(descriptors);
        assertThat(LifecycleTest.sockstateThreads()).isEmpty();
    }
}
