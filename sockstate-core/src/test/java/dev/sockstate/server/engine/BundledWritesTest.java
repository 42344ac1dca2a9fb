package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.sockstate.port.MisbehavingBackend;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import dev.sockstate.server.engine.turn.Worker;
import dev.sockstate.server.framing.FrameEncoder;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.observer.ServerObserver;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;


/**
 * A worker writing to another connection of its own port, from the turn of the connection it reads
 * (a proxy's, a chat's): each write reaches the other connection's peer whole, framed on its own and
 * in order, past the bundle's room too; a FIN asked for after them goes after them, and a write after
 * the FIN is dropped; on epoll the worker allocates nothing for such writes.
 */
class BundledWritesTest {

    private static final String GROUP = "bundles";

    /** A line's end, written after each line where the framing adds none. */
    private static final ByteBuffer LINE_END = ByteBuffer.wrap(new byte[] { '\n' }).asReadOnlyBuffer();

    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws IOException {
        this.fixture.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "framed", "as written" })
    void linesRelayedToTheOtherConnectionArriveEachFramedAndInOrder(String writes) throws Exception {
        Pair pair = start(writes.equals("as written"));
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            sent.add("line " + i);
        }
        assertThat(relay(pair, sent, 250)).isEqualTo(sent);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "framed", "as written" })
    void writesPastTheRoomOfABundleArriveInOrder(String writes) throws Exception {
        Pair pair = start(writes.equals("as written"));
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            // 64 lines of about 1,000 bytes a send: a read's writes are four times a bundle's room.
            sent.add(i + " " + "x".repeat(1_000));
        }
        assertThat(relay(pair, sent, 64)).isEqualTo(sent);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "framed", "as written" })
    void theFinAskedForAfterRelayedWritesComesAfterThemAndAWriteAfterItIsDropped(String writes) throws Exception {
        Pair pair = start(writes.equals("as written"));
        pair.a.getOutputStream().write("one\ntwo\nbye\nlate\n".getBytes(StandardCharsets.US_ASCII));
        BufferedReader b = pair.bReader;
        List<String> received = new ArrayList<>();
        String line;
        while ((line = b.readLine()) != null) {
            received.add(line);
        }
        assertThat(received).containsExactly("one", "two", "last");
    }

    @Test
    void relayingToAConnectionOfTheSamePortAllocatesNothingPerWriteOnEpoll() throws Exception {
        assumeFalse(MisbehavingBackend.asked(), "measures the real backend's own costs");
        Assumptions.assumeTrue(ServerFixture.backend().name().equals("epoll"),
                "the allocation is measured on epoll, as the echo path's is");
        Pair pair = start(false);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            lines.add("line " + (char) ('a' + i % 26) + " of a hundred");
        }
        for (int round = 0; round < 60; round++) {
            assertThat(relay(pair, lines, 100)).isEqualTo(lines);
        }
        // Warm enough for the compiler to have the system calls compiled (on the foreign function API,
        // an interpreted call allocates a slice of its errno segment): as many rounds as the echo path's warm-up.
        List<String> one = List.of("warm");
        for (int round = 0; round < 20_000; round++) {
            relay(pair, one, 1);
        }
        Thread worker = workerThread();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        // The fewest of up to ten measurements, until one is under the bound: on a loaded machine (CI's two
        // cores, in a JVM that ran the suites before) the compiler may still be at work on the path for a
        // while, and code not compiled yet allocates per call what compiled code does not. The bound is
        // two bytes a write: an object a write is at least 16, 320,000 bytes a measurement, and fails;
        // what the JDK allocates a system call stays under it (on the foreign function API, the slice
        // of the errno segment that SharedUtils.checkCaptureSegment makes where the compiler did not
        // inline it, 40 bytes: three calls a round of 100 writes, 24,000 bytes a measurement).
        long bound = 2L * 200 * 100;
        long fewest = Long.MAX_VALUE;
        for (int measurement = 0; measurement < 10 && fewest >= bound; measurement++) {
            long before = threads.getThreadAllocatedBytes(worker.getId());
            for (int round = 0; round < 200; round++) {
                relay(pair, lines, 100);
            }
            fewest = Math.min(fewest, threads.getThreadAllocatedBytes(worker.getId()) - before);
        }
        assertThat(fewest).as("bytes the worker allocated relaying 20,000 lines").isLessThan(bound);
    }

    /**
     * An accepted connection is opened by the worker that accepted it, which may serve another port:
     * while that worker holds it in onOpen, the worker of its own port that writes to it must hand the
     * write over, not bundle it (only the port's worker may take a bundle, and the opening worker takes
     * what was handed over when it writes). The writes arrive in order, and nothing is lost.
     */
    @Test
    @BlocksWorkers("holds the accepting worker in onOpen until another worker wrote")
    void aWriteToAConnectionStillOpeningOnTheAcceptingWorkerOfAnotherPortArrivesInOrder() throws Exception {
        AtomicBoolean armed = new AtomicBoolean();
        AtomicReference<Connection> held = new AtomicReference<>();
        CountDownLatch written = new CountDownLatch(1);
        Queue<Connection> opened = new ConcurrentLinkedQueue<>();
        ConnectionHandler handler = new ConnectionHandler() {
            @Override
            public void onOpen(Connection connection) throws Exception {
                boolean elsewhere = Worker.currentPort() != ((TcpConnection) connection).port;
                if (armed.get() && elsewhere && held.compareAndSet(null, connection)) {
                    // Opened by the accepting worker of another port: held here until its own port's worker wrote to it.
                    written.await(5, TimeUnit.SECONDS);
                    connection.write("greeting\n".getBytes(StandardCharsets.US_ASCII));
                }
                opened.add(connection);
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                data.position(data.limit());
                Connection target = held.get();
                if (target != null && target != connection) {
                    target.write("from the other\n".getBytes(StandardCharsets.US_ASCII));
                    written.countDown();
                }
            }
        };
        SocketServer server = this.fixture.start(ServerFixture.backend(), List.of(WorkerGroupSettings.of(GROUP, 2).withPortPerWorker(true)),
                ServerObserver.NONE, ServerFixture.tcp("opening").group(GROUP).handler(handler).build());
        List<Socket> earlier = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            earlier.add(this.fixture.connect(server, "opening"));
        }
        ServerFixture.await(() -> opened.size() == 2, "the first two connections to open");
        armed.set(true);
        Socket target = null;
        for (int i = 0; i < 2 && held.get() == null; i++) {
            Socket next = this.fixture.connect(server, "opening");
            ServerFixture.await(() -> held.get() != null || opened.size() == earlier.size() + 1, "the connection to open or be held");
            if (held.get() != null) {
                target = next;
            }
            else {
                earlier.add(next);
            }
        }
        assertThat(target).as("a connection opened by the accepting worker of another port").isNotNull();
        NotificationPort home = ((TcpConnection) held.get()).port;
        // A peer whose connection that port serves writes: its worker writes to the held connection.
        int peer = -1;
        List<Connection> before = new ArrayList<>(opened);
        for (int i = 0; i < before.size(); i++) {
            if (((TcpConnection) before.get(i)).port == home) {
                peer = i;
            }
        }
        assertThat(peer).as("an earlier connection on the held one's port").isNotNegative();
        Connection peerConnection = before.get(peer);
        Socket peerSocket = earlier.stream().filter((socket) -> socket.getLocalPort() == ((InetSocketAddress) peerConnection.remoteAddress()).getPort())
                .findFirst().orElseThrow();
        peerSocket.getOutputStream().write('x');
        BufferedReader reader = new BufferedReader(new InputStreamReader(target.getInputStream(), StandardCharsets.US_ASCII));
        assertThat(reader.readLine()).isEqualTo("from the other");
        assertThat(reader.readLine()).isEqualTo("greeting");
        // (The writing thread counts the bytes sent once the send returned: a peer may read them first.)
        ServerFixture.await(() -> ((TcpConnection) held.get()).pendingWriteBytes() == 0, "no write left pending");
    }

    /**
     * Two connections of one worker's listener, each line one sends written to the other ({@code bye}: its
     * last line, then a FIN).
     * @param asWritten whether the listener's framing passes writes on as they are (a line, then its
     * end, written by the handler: raw bundles), else it ends each line written (bundles that keep bounds)
     */
    private Pair start(boolean asWritten) throws Exception {
        AtomicReference<Connection> waiting = new AtomicReference<>();
        ConnectionHandler pairing = new ConnectionHandler() {
            @Override
            public void onOpen(Connection connection) {
                Connection other = waiting.getAndSet(null);
                if (other == null) {
                    waiting.set(connection);
                    return;
                }
                other.attach(connection);
                connection.attach(other);
            }

            @Override
            public void onData(Connection connection, ByteBuffer line) {
                Connection other = (Connection) connection.attachment();
                if (line.remaining() == 3 && line.get(line.position()) == 'b' && line.get(line.position() + 1) == 'y') {
                    other.write((asWritten ? "last\n" : "last").getBytes(StandardCharsets.US_ASCII));
                    other.shutdownOutput();
                    line.position(line.limit());
                    return;
                }
                other.write(line);
                if (asWritten) {
                    other.write(LINE_END.duplicate());
                }
            }
        };
        Framing framing = asWritten ? Framing.of(Framing.line().decoder(), FrameEncoder.AS_IS) : Framing.line();
        SocketServer server = this.fixture.start(ServerFixture.backend(), List.of(WorkerGroupSettings.of(GROUP, 1).withPortPerWorker(true)),
                ServerObserver.NONE, ServerFixture.tcp("pairs").group(GROUP).framing(framing).handler(pairing).build());
        Socket a = this.fixture.connect(server, "pairs");
        Socket b = this.fixture.connect(server, "pairs");
        ServerFixture.await(() -> server.connections().size() == 2
                && server.connections().stream().allMatch((c) -> c.attachment() != null), "the two connections are paired");
        return new Pair(a, b, reader(b));
    }

    /** @return the lines the second connection's peer read after the first's peer sent these, {@code perSend} a send */
    private static List<String> relay(Pair pair, List<String> lines, int perSend) throws IOException {
        OutputStream out = pair.a.getOutputStream();
        List<String> received = new ArrayList<>();
        for (int from = 0; from < lines.size(); from += perSend) {
            StringBuilder chunk = new StringBuilder();
            for (String line : lines.subList(from, Math.min(lines.size(), from + perSend))) {
                chunk.append(line).append('\n');
            }
            out.write(chunk.toString().getBytes(StandardCharsets.US_ASCII));
            for (int i = from; i < Math.min(lines.size(), from + perSend); i++) {
                received.add(pair.bReader.readLine());
            }
        }
        return received;
    }

    private static BufferedReader reader(Socket socket) throws IOException {
        return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
    }

    private static Thread workerThread() {
        String name = "sockstate-" + GROUP + "-1";
        return Thread.getAllStackTraces().keySet().stream().filter((thread) -> thread.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no thread named " + name));
    }

    private record Pair(Socket a, Socket b, BufferedReader bReader) {
    }
}
