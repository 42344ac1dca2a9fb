package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.sockstate.port.Backend;
import dev.sockstate.port.ForwardingBackend;
import dev.sockstate.port.ForwardingPort;
import dev.sockstate.port.MisbehavingBackend;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import dev.sockstate.server.engine.turn.Worker;
import dev.sockstate.server.observer.ServerObserver;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Bytes leave in the order their writes returned, whichever thread wrote them: a write from another
 * thread that returned while the handler ran is sent before the handler's own later write, and
 * before the FIN the handler asks for afterwards.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WriteOrderTest {

    private final ServerFixture fixture = new ServerFixture();

    private final ExecutorService other = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
        this.other.shutdownNow();
    }

    @Test
    @BlocksWorkers("holds the worker to order another thread's write before its own")
    void aWriteFromAnotherThreadThatReturnedFirstIsSentFirst() throws Exception {
        Socket client = serve((connection, written) -> connection.write(bytes("B")));
        client.getOutputStream().write('?');
        assertThat(new String(client.getInputStream().readNBytes(2), StandardCharsets.US_ASCII)).isEqualTo("AB");
    }

    @Test
    @BlocksWorkers("holds the worker to order another thread's write before its own")
    void aWriteFromAnotherThreadThatReturnedFirstIsSentBeforeTheFin() throws Exception {
        Socket client = serve((connection, written) -> connection.shutdownOutput());
        client.getOutputStream().write('?');
        client.setSoTimeout(3000);
        InputStream in = client.getInputStream();
        assertThat(new String(in.readNBytes(1), StandardCharsets.US_ASCII)).isEqualTo("A");
        assertThat(in.read()).isEqualTo(-1);
    }

    @Test
    @BlocksWorkers("holds the worker while another thread writes")
    void writesFromAnotherThreadToAnIdleConnectionShareOneWakeUp() throws Exception {
        AtomicInteger posts = new AtomicInteger();
        try (HeldWorker held = holdWorker(countingPosts(posts))) {
            int before = posts.get();
            for (int i = 0; i < 1000; i++) {
                held.target().write(bytes("x"));
            }
            int wakeUps = posts.get() - before;
            held.release().countDown();
            assertThat(held.quiet().getInputStream().readNBytes(1000)).hasSize(1000);
            assertThat(wakeUps).as("wake-ups posted for 1,000 writes to an idle connection").isEqualTo(1);
        }
    }

    @Test
    @BlocksWorkers("holds the worker while another thread writes")
    void writesFromAnotherThreadThatWaitedTogetherLeaveInOneSendARound() throws Exception {
        assumeFalse(MisbehavingBackend.asked(), "measures the real backend's own costs");
        AtomicInteger sends = new AtomicInteger();
        Backend watched = SocketCallWatch.watched(ServerFixture.backend(), (method, result, thrown) -> {
            if (method.equals("send")) {
                sends.incrementAndGet();
            }
        });
        try (HeldWorker held = holdWorker(watched)) {
            for (int i = 0; i < 1000; i++) {
                held.target().write(bytes(String.valueOf(i % 10)));
            }
            int before = sends.get();
            held.release().countDown();
            byte[] arrived = held.quiet().getInputStream().readNBytes(1000);
            for (int i = 0; i < 1000; i++) {
                assertThat(arrived[i]).as("byte %d", i).isEqualTo((byte) ('0' + i % 10));
            }
            // A round of the owner's turn takes at most REQUESTS_PER_ROUND writes: one send each round, not one each write.
            assertThat(sends.get() - before).as("sends for 1,000 writes that waited for the owner together")
                    .isLessThanOrEqualTo((1000 + TcpConnection.REQUESTS_PER_ROUND - 1) / TcpConnection.REQUESTS_PER_ROUND);
        }
    }

    @Test
    void aWriteToAConnectionOfTheWritingWorkersOwnPortPostsNothingThroughThePort() throws Exception {
        AtomicInteger posts = new AtomicInteger();
        List<Connection> opened = new CopyOnWriteArrayList<>();
        AtomicInteger postsDuringWrites = new AtomicInteger(-1);
        SocketServer server = oneWorker(countingPosts(posts), opened, (connection, data) -> {
            data.position(data.limit());
            int before = posts.get();
            for (int i = 0; i < 100; i++) {
                opened.get(0).write(bytes("y"));
            }
            postsDuringWrites.set(posts.get() - before);
        });
        try (Socket target = new Socket(InetAddress.getLoopbackAddress(), server.listener("idle").portNumber());
                Socket writer = new Socket(InetAddress.getLoopbackAddress(), server.listener("idle").portNumber())) {
            ServerFixture.await(() -> opened.size() == 2, "both connections opened");
            writer.getOutputStream().write('w');
            target.setSoTimeout(10_000);
            assertThat(target.getInputStream().readNBytes(100)).hasSize(100);
            assertThat(postsDuringWrites.get()).as("runs posted through the port for 100 writes from its only worker").isZero();
        }
    }

    /**
     * @return a started server of one worker whose listener records each connection as it opens and
     * passes data to the handler given; stopped with the fixture
     */
    private SocketServer oneWorker(Backend backend, List<Connection> opened, ConnectionHandler data) {
        ConnectionHandler handler = new ConnectionHandler() {

            @Override
            public void onOpen(Connection connection) {
                opened.add(connection);
            }

            @Override
            public void onData(Connection connection, ByteBuffer bytes) throws Exception {
                data.onData(connection, bytes);
            }
        };
        return this.fixture.start(backend, List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)), ServerObserver.NONE,
                ServerFixture.tcp("idle").handler(handler).build());
    }

    /**
     * @return a server of one worker with two connections: the worker held in a call for the second
     * ({@code blocker}) until released, the first ({@code quiet}, the server's {@code target}) idle
     */
    private HeldWorker holdWorker(Backend backend) throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Connection> idle = new CopyOnWriteArrayList<>();
        SocketServer server = oneWorker(backend, idle, (connection, data) -> {
            busy.countDown();
            release.await(10, TimeUnit.SECONDS);
        });
        Socket quiet = this.fixture.connect(server, "idle");
        Socket blocker = this.fixture.connect(server, "idle");
        ServerFixture.await(() -> idle.size() == 2, "both connections opened");
        blocker.getOutputStream().write('b');
        HeldWorker held = new HeldWorker(quiet, idle.get(0), release);
        if (!busy.await(10, TimeUnit.SECONDS)) {
            held.close();
            throw new AssertionError("the only worker did not take the blocking call");
        }
        return held;
    }

    /** The idle connection's client, the connection itself on the server, and what lets the held worker go. */
    private record HeldWorker(Socket quiet, Connection target, CountDownLatch release) implements AutoCloseable {

        @Override
        public void close() {
            this.release.countDown();
        }
    }

    /** @return the backend whose ports count the runs posted to them */
    private static Backend countingPosts(AtomicInteger posts) {
        return new ForwardingBackend(ServerFixture.backend()) {

            @Override
            public NotificationPort openPort() throws NativeIoException {
                return new CountingPosts(super.openPort(), posts);
            }
        };
    }

    /** Counts the runs posted to a real port. */
    static final class CountingPosts extends ForwardingPort {

        private final AtomicInteger posts;

        CountingPosts(NotificationPort real, AtomicInteger posts) {
            super(real);
            this.posts = posts;
        }

        @Override
        protected void doPost(long key, int payload) throws NativeIoException {
            if (key != Worker.STOP_KEY) {
                this.posts.incrementAndGet();
            }
            super.doPost(key, payload);
        }
    }

    /** A handler whose onData has another thread write "A", waits until that write returned, then acts. */
    private Socket serve(BiConsumer<Connection, Boolean> then) throws Exception {
        ConnectionHandler handler = (connection, data) -> {
            data.position(data.limit());
            this.other.submit(() -> connection.write(bytes("A"))).get(10, TimeUnit.SECONDS);
            then.accept(connection, true);
        };
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("order").handler(handler).build());
        return this.fixture.connect(server, "order");
    }

    private static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }
}
