package dev.sockstate.server.engine;

import static dev.sockstate.server.engine.ServerFixture.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.within;

import dev.sockstate.port.Protocol;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.shaping.Shaping;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Traffic shaping on the real backend, with real peers that send and read as fast as loopback lets
 * them: each connection's reads and writes keep to their rates, the listener's connections together
 * to theirs, a running listener's rates change and lift, and a throttled connection costs its worker
 * no processor time while it waits. The rates are measured over a window after the first tenth of a
 * second's burst ({@code sockstate.test.shaping.window}, in seconds, 2 unless set).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ShapingTest {

    private static final long RATE = 512 * 1024;

    private static final double WINDOW_SECONDS = Double.parseDouble(System.getProperty("sockstate.test.shaping.window", "2"));

    private final ServerFixture fixture = new ServerFixture();

    private final List<Connection> opened = new CopyOnWriteArrayList<>();

    private final AtomicLong received = new AtomicLong();

    private final AtomicLong writables = new AtomicLong();

    private final AtomicLong readThrottledNanos = new AtomicLong();

    private final AtomicLong writeThrottledNanos = new AtomicLong();

    private final AtomicBoolean stopWriting = new AtomicBoolean();

    private final List<Thread> writers = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() throws Exception {
        this.stopWriting.set(true);
        this.fixture.close();
        for (Thread writer : this.writers) {
            writer.join(5000);
        }
    }

    @Test
    void eachConnectionReadsAtItsRateWhileItsPeerSendsAsFastAsItCan() throws Exception {
        SocketServer server = serve(Shaping.perConnection(RATE, 0), 0);
        Socket peer = this.fixture.connect(server, "shaped");
        AtomicLong sent = flood(peer);
        double rate = rate(this.received::get);
        assertThat(rate).as("bytes a second read").isCloseTo(RATE, within(RATE * 0.05));
        assertThat(sent.get() - this.received.get()).as("bytes the peer sent that wait in the sockets, not in the server")
                .isGreaterThan(0);
        assertThat(this.readThrottledNanos.get()).as("time counted throttled").isGreaterThan(TimeUnit.MILLISECONDS.toNanos(200));
    }

    @Test
    void eachConnectionWritesAtItsRateTheRestWaitingInItsQueueAsBackPressure() throws Exception {
        int reply = (int) (RATE * (WINDOW_SECONDS + 1));
        SocketServer server = serve(Shaping.perConnection(0, RATE), reply);
        Socket peer = this.fixture.connect(server, "shaped");
        peer.getOutputStream().write('?');
        AtomicLong read = drain(peer.getInputStream(), reply);
        await(() -> !this.opened.isEmpty() && this.opened.get(0).pendingWriteBytes() > 0, "the reply to be queued");
        Connection connection = this.opened.get(0);
        assertThat(connection.isWritable()).as("writable, with most of the reply held back by the shaping").isFalse();
        double rate = rate(read::get);
        assertThat(rate).as("bytes a second written").isCloseTo(RATE, within(RATE * 0.05));
        await(() -> read.get() == reply, "the whole reply to arrive");
        await(() -> this.writables.get() == 1, "onWritable once the queue drained");
        assertThat(connection.pendingWriteBytes()).isZero();
        assertThat(this.writeThrottledNanos.get()).as("time counted throttled").isGreaterThan(TimeUnit.MILLISECONDS.toNanos(200));
    }

    @Test
    void theListenersConnectionsTogetherReadAtItsTotalRate() throws Exception {
        SocketServer server = serve(new Shaping(0, 0, RATE, 0), 0);
        Socket first = this.fixture.connect(server, "shaped");
        Socket second = this.fixture.connect(server, "shaped");
        await(() -> this.opened.size() == 2, "both connections to open");
        flood(first);
        flood(second);
        double rate = rate(this.received::get);
        assertThat(rate).as("bytes a second read by both").isCloseTo(RATE, within(RATE * 0.05));
    }

    @Test
    void aRunningListenersRatesChangeAndLift() throws Exception {
        SocketServer server = serve(Shaping.perConnection(RATE / 4, 0), 0);
        Socket peer = this.fixture.connect(server, "shaped");
        flood(peer);
        assertThat(rate(this.received::get)).as("bytes a second read at a quarter").isCloseTo(RATE / 4.0, within(RATE / 4 * 0.05));
        assertThat(server.changeShaping("shaped", Shaping.perConnection(RATE, 0))).isEqualTo(Shaping.perConnection(RATE / 4, 0));
        assertThat(rate(this.received::get)).as("bytes a second read after the change").isCloseTo(RATE, within(RATE * 0.05));
        server.changeShaping("shaped", Shaping.NONE);
        long before = this.received.get();
        Thread.sleep(500);
        assertThat(this.received.get() - before).as("bytes read in half a second once lifted").isGreaterThan(8 * RATE);
    }

    @Test
    void aThrottledConnectionCostsItsWorkerNoProcessorTimeWhileItWaits() throws Exception {
        // A slow rate, so that the connections wait most of the time, reading and writing both.
        long slow = 64 * 1024;
        int reply = (int) (slow * 4);
        SocketServer server = serve(Shaping.perConnection(slow, slow), reply);
        Socket reader = this.fixture.connect(server, "shaped");
        reader.getOutputStream().write('?');
        drain(reader.getInputStream(), reply);
        flood(this.fixture.connect(server, "shaped"));
        Thread.sleep(500);
        long cpuBefore = ServerFixture.workerCpuNanos();
        long wallBefore = System.nanoTime();
        Thread.sleep(2000);
        long cpu = ServerFixture.workerCpuNanos() - cpuBefore;
        long wall = System.nanoTime() - wallBefore;
        assertThat((double) cpu / wall).as("the workers' share of a processor while the connections are throttled").isLessThan(0.05);
    }

    @Test
    void aThrottledReplyOfAHandlerOnAnExecutorArrivesWholeAtItsRate() throws Exception {
        // The handler writes a reply its rate holds back, then holds its executor's thread past the timer's
        // first wake: the turns that follow send the rest.
        int reply = 48 * 1024;
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            ConnectionHandler handler = new ConnectionHandler() {

                @Override
                public void onData(Connection connection, ByteBuffer data) throws InterruptedException {
                    data.position(data.limit());
                    connection.write(ByteBuffer.allocate(reply));
                    Thread.sleep(300);
                }
            };
            SocketServer server = this.fixture.start(List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)), ServerObserver.NONE,
                    ServerFixture.tcp("held").handler(handler).handlerExecutor(executor).shaping(Shaping.perConnection(0, 64 * 1024))
                            .build());
            Socket peer = this.fixture.connect(server, "held");
            peer.getOutputStream().write('?');
            long start = System.nanoTime();
            assertThat(ServerFixture.readCount(peer.getInputStream(), reply)).as("bytes of the reply").isEqualTo(reply);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("ms for 48 KiB at 64 KiB a second")
                    .isBetween(500L, 3000L);
        }
        finally {
            executor.shutdownNow();
        }
    }

    @Test
    void aUdpListenerRefusesShaping() {
        assertThat(catchThrowable(() -> ServerFixture.udp("datagrams").handler(UdpServingTest::reflect)
                .shaping(Shaping.perConnection(RATE, 0)).build()))
                .hasMessageContaining("Listener 'datagrams'").hasMessageContaining("shaping")
                .hasMessageContaining("none for a UDP listener");
    }

    /** Serves a listener whose handler counts what it reads and answers its first read with a reply of that many bytes. */
    private SocketServer serve(Shaping shaping, int reply) {
        ConnectionHandler handler = new ConnectionHandler() {

            @Override
            public void onOpen(Connection connection) {
                ShapingTest.this.opened.add(connection);
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                boolean first = connection.attributes().putIfAbsent("answered", true) == null;
                ShapingTest.this.received.addAndGet(data.remaining());
                data.position(data.limit());
                if (first && reply > 0) {
                    connection.write(ByteBuffer.allocate(reply));
                }
            }

            @Override
            public void onWritable(Connection connection) {
                ShapingTest.this.writables.incrementAndGet();
            }
        };
        ServerObserver observer = new ServerObserver() {

            @Override
            public ListenerObserver listener(String listener, Protocol protocol, ActiveCounts active) {
                return new ListenerObserver() {

                    @Override
                    public void throttled(boolean read, long nanos) {
                        (read ? ShapingTest.this.readThrottledNanos : ShapingTest.this.writeThrottledNanos).addAndGet(nanos);
                    }
                };
            }
        };
        ListenerSettings listener = ServerFixture.tcp("shaped").handler(handler).shaping(shaping).maxPendingWriteBytes(64 * 1024).build();
        return this.fixture.start(List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)), observer, listener);
    }

    /** @return the count of what a thread of the test's sends on the socket as fast as it takes it, until the test ends */
    private AtomicLong flood(Socket peer) {
        AtomicLong sent = new AtomicLong();
        Thread writer = new Thread(() -> {
            byte[] chunk = new byte[64 * 1024];
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            try {
                OutputStream out = peer.getOutputStream();
                while (!this.stopWriting.get() && System.nanoTime() < deadline) {
                    out.write(chunk);
                    sent.addAndGet(chunk.length);
                }
            }
            catch (IOException ex) {
                // Closed as the test ends.
            }
        }, "shaping-flood");
        writer.setDaemon(true);
        writer.start();
        this.writers.add(writer);
        return sent;
    }

    /** @return the count of what a thread of the test's reads from the stream, up to the bytes expected */
    private AtomicLong drain(InputStream in, long expected) {
        AtomicLong read = new AtomicLong();
        Thread reader = new Thread(() -> {
            byte[] chunk = new byte[64 * 1024];
            try {
                while (read.get() < expected) {
                    int n = in.read(chunk);
                    if (n < 0) {
                        return;
                    }
                    read.addAndGet(n);
                }
            }
            catch (IOException ex) {
                // Closed as the test ends.
            }
        }, "shaping-drain");
        reader.setDaemon(true);
        reader.start();
        this.writers.add(reader);
        return read;
    }

    /**
     * @return the bytes a second a count grows by over the window, measured once its burst is spent
     * (from the first byte, a quarter of a second on)
     */
    private static double rate(LongSupplier count) throws InterruptedException {
        await(() -> count.getAsLong() > 0, "the first bytes");
        Thread.sleep(250);
        long start = System.nanoTime();
        long before = count.getAsLong();
        Thread.sleep((long) (WINDOW_SECONDS * 1000));
        long bytes = count.getAsLong() - before;
        long nanos = System.nanoTime() - start;
        double rate = bytes * 1e9 / nanos;
        System.out.printf("shaping: %d bytes in %.3f s: %.0f B/s on %s%n", bytes, nanos / 1e9, rate, ServerFixture.backend().name());
        return rate;
    }
}
