package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Events;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import dev.sockstate.server.engine.turn.SocketTurn;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The races of the exclusive edge mode: persistent edge-triggered registrations shared by many
 * workers, where a short read counts as drained.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ExclusiveEdgeTest {

    /** The folded-events bits of {@link SocketTurn}'s state word. */
    private static final int PENDING_EVENTS = 0xff << 8;

    private final ServerFixture fixture = new ServerFixture();

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws Exception {
        this.threads.shutdownNow();
        this.fixture.close();
    }

    private static ListenerSettings exclusive(String name, ConnectionHandler handler) {
        return ServerFixture.tcp(name).exclusiveEdge(true).handler(handler).build();
    }

    @Test
    @BlocksWorkers("holds the worker until the data and the FIN are both in")
    void dataAndFinArrivingInOneReadAreBothHandled() throws Exception {
        assertDataAndFinInOneReadAreBothHandled(Events.IN | Events.HANGUP);
    }

    private void assertDataAndFinInOneReadAreBothHandled(int events) throws Exception {
        CountDownLatch blocking = new CountDownLatch(1);
        CountDownLatch unblock = new CountDownLatch(1);
        AtomicInteger hangups = new AtomicInteger();
        List<String> received = new java.util.concurrent.CopyOnWriteArrayList<>();
        ConnectionHandler handler = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                if (data.get(data.position()) == 'B') {
                    blocking.countDown();
                    unblock.await(10, TimeUnit.SECONDS);
                    return;
                }
                received.add(StandardCharsets.US_ASCII.decode(data.duplicate()).toString());
                connection.write(data);
            }

            @Override
            public void onHangup(Connection connection) {
                hangups.incrementAndGet();
                connection.close();
            }
        };
        // One worker, so that it can be held busy while the data and the FIN both arrive.
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("echo").exclusiveEdge(true).events(events).handler(handler).build());
        Socket client = this.fixture.connect(server, "echo");
        client.setSoTimeout(3000);
        Socket blocker = this.fixture.connect(server, "echo");
        ServerFixture.await(() -> server.listener("echo").activeConnections() == 2, "both connections are registered");
        blocker.getOutputStream().write('B');
        assertThat(blocking.await(10, TimeUnit.SECONDS)).isTrue();
        client.getOutputStream().write("hello".getBytes(StandardCharsets.US_ASCII));
        client.shutdownOutput();
        Thread.sleep(100);
        unblock.countDown();
        // A short read taken as drained would leave the FIN unread: no EOF, and this read times out.
        byte[] echoed = client.getInputStream().readAllBytes();
        assertThat(new String(echoed, StandardCharsets.US_ASCII)).isEqualTo("hello");
        assertThat(received).containsExactly("hello");
        ServerFixture.await(() -> hangups.get() == 1, "the hang-up is handled");
    }

    @Test
    @BlocksWorkers("holds the owning worker while more events arrive")
    void eventsArrivingWhileAWorkerOwnsTheConnectionAreHandledByThatWorkerBeforeItLetsGo() throws Exception {
        // The second edge comes while the first byte is unread only where the backend raises one per
        // arrival (epoll); elsewhere the owner reads the second byte itself, reading until would-block.
        boolean edgePerArrival = ServerFixture.backend().edgeOnEveryArrival();
        CountDownLatch inside = new CountDownLatch(1);
        AtomicBoolean sawPending = new AtomicBoolean();
        AtomicInteger calls = new AtomicInteger();
        ConnectionHandler handler = (connection, data) -> {
            if (calls.incrementAndGet() == 1) {
                inside.countDown();
                SocketTurn registration = (SocketTurn) connection;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(edgePerArrival ? 10 : 0);
                while ((registration.state() & PENDING_EVENTS) == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                sawPending.set((registration.state() & PENDING_EVENTS) != 0);
            }
            connection.write(data);
        };
        // Two workers: while one runs the handler, the other takes the next edge and folds it in.
        SocketServer server = this.fixture.start(2, exclusive("echo", handler));
        Socket client = this.fixture.connect(server, "echo");
        OutputStream out = client.getOutputStream();
        out.write('1');
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        out.write('2');
        InputStream in = client.getInputStream();
        assertThat(in.read()).isEqualTo('1');
        assertThat(in.read()).as("the folded-in event was handled, nothing lost").isEqualTo('2');
        if (edgePerArrival) {
            assertThat(sawPending).as("the second edge was folded into the owned state word").isTrue();
        }
        assertThat(calls.get()).isEqualTo(2);
    }

    @Test
    @BlocksWorkers("spins in a handler to keep one connection busy")
    void aConnectionThatKeepsSendingDoesNotStarveTheOthers() throws Exception {
        ConnectionHandler handler = (connection, data) -> {
            if (data.get(data.position()) == 'F') {
                // A slow sink: the flooder always has more queued than one read takes.
                long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(200);
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                return;
            }
            connection.write(data);
        };
        SocketServer server = this.fixture.start(1, exclusive("echo", handler));
        Socket flooder = this.fixture.connect(server, "echo");
        Socket pinger = this.fixture.connect(server, "echo");
        AtomicBoolean flooding = new AtomicBoolean(true);
        AtomicLong flooded = new AtomicLong();
        Future<?> flood = this.threads.submit(() -> {
            byte[] chunk = new byte[64 * 1024];
            java.util.Arrays.fill(chunk, (byte) 'F');
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            OutputStream out = flooder.getOutputStream();
            try {
                while (flooding.get() && System.nanoTime() < deadline) {
                    out.write(chunk);
                    flooded.addAndGet(chunk.length);
                }
            }
            catch (java.io.IOException ex) {
                if (flooding.get()) {
                    throw ex;
                }
            }
            return null;
        });
        ServerFixture.await(() -> flooded.get() > 4L * 1024 * 1024, "the flooder has a backlog queued");
        long worst = 0;
        OutputStream out = pinger.getOutputStream();
        InputStream in = pinger.getInputStream();
        for (int i = 0; i < 20; i++) {
            long start = System.nanoTime();
            out.write('p');
            assertThat(in.read()).isEqualTo('p');
            worst = Math.max(worst, System.nanoTime() - start);
        }
        flooding.set(false);
        flooder.shutdownOutput();
        flood.get(30, TimeUnit.SECONDS);
        // Without a per-turn budget the only worker stays on the flooder for as long as it sends.
        assertThat(TimeUnit.NANOSECONDS.toMillis(worst)).as("worst round trip beside the flooder, ms").isLessThan(1000);
    }

    @Test
    @BlocksWorkers("yields in handlers to widen the window for a second worker")
    void manyWorkersAndManyConnectionsNeverHandleOneConnectionTwiceAtOnce() throws Exception {
        AtomicInteger overlaps = new AtomicInteger();
        ConnectionHandler handler = (connection, data) -> {
            AtomicInteger inside = (AtomicInteger) connection.attributes().computeIfAbsent("inside", (key) -> new AtomicInteger());
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            Thread.yield();
            connection.write(data);
            inside.decrementAndGet();
        };
        SocketServer server = this.fixture.start(4, exclusive("echo", handler));
        int connections = 48;
        List<Future<Boolean>> results = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            Socket client = this.fixture.connect(server, "echo");
            Random random = new Random(c);
            byte[] payload = new byte[40_000 + random.nextInt(40_000)];
            random.nextBytes(payload);
            // Pipelined: the writer sends small pieces while the reader collects the echo.
            Future<?> writer = this.threads.submit(() -> {
                OutputStream out = client.getOutputStream();
                for (int offset = 0; offset < payload.length; offset += 333) {
                    out.write(payload, offset, Math.min(333, payload.length - offset));
                }
                return null;
            });
            results.add(this.threads.submit(() -> {
                byte[] echoed = client.getInputStream().readNBytes(payload.length);
                writer.get();
                return java.util.Arrays.equals(payload, echoed);
            }));
        }
        for (Future<Boolean> result : results) {
            assertThat(result.get(60, TimeUnit.SECONDS)).as("echoed intact").isTrue();
        }
        assertThat(overlaps.get()).as("handler calls overlapping on one connection").isZero();
    }

    @Test
    void noByteIsLostOverManyRoundTripsOfEverySize() throws Exception {
        EchoHandler handler = new EchoHandler();
        // A small pending-write limit, so that large messages also pause and resume reading.
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("echo").exclusiveEdge(true).maxPendingWriteBytes(64 * 1024)
                .handler(handler).build());
        int connections = 8;
        int roundTrips = 600;
        List<Future<Long>> results = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            Socket client = this.fixture.connect(server, "echo");
            Random random = new Random(100 + c);
            results.add(this.threads.submit(() -> {
                OutputStream out = client.getOutputStream();
                InputStream in = client.getInputStream();
                long bytes = 0;
                for (int i = 0; i < roundTrips; i++) {
                    int size = (i % 50 == 49) ? 100_000 + random.nextInt(150_000) : 1 + random.nextInt(2048);
                    byte[] message = new byte[size];
                    random.nextBytes(message);
                    Future<?> writer = (size > 32 * 1024) ? this.threads.submit(() -> {
                        out.write(message);
                        return null;
                    }) : null;
                    if (writer == null) {
                        out.write(message);
                    }
                    byte[] echoed = in.readNBytes(size);
                    if (writer != null) {
                        writer.get();
                    }
                    if (!java.util.Arrays.equals(message, echoed)) {
                        throw new AssertionError("round trip " + i + " of " + size + " bytes came back different");
                    }
                    bytes += size;
                }
                return bytes;
            }));
        }
        for (Future<Long> result : results) {
            assertThat(result.get(80, TimeUnit.SECONDS)).isPositive();
        }
        assertThat(handler.errors).isEmpty();
    }
}
