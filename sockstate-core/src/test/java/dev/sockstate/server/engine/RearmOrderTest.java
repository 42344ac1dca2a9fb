package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.sockstate.port.MisbehavingBackend;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import dev.sockstate.server.observer.ServerObserver;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The order in which a one-shot connection's registration changes reach the port, provoked: a
 * worker handles two connections of one batch and is held in the second one's handler right after
 * it let go of the first; another thread then writes to, or closes, that first connection, whose turn
 * runs on the other worker. Whatever the first worker still does for it must neither undo that turn's
 * registration nor make it wait for a worker's next dequeue, which the groups here make a minute long.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RearmOrderTest {

    /** Bigger than what a loopback socket and a peer with a small window buffer between them. */
    private static final int BIG_REPLY = 16 << 20;

    /** Long enough that a reply or a close waiting for a worker's dequeue to time out fails the test. */
    private static final Duration DEQUEUE_TIMEOUT = Duration.ofSeconds(60);

    private final ServerFixture fixture = new ServerFixture();

    private final Map<Character, CountDownLatch> holds = new ConcurrentHashMap<>();

    private final Map<Character, CountDownLatch> held = new ConcurrentHashMap<>();

    private final Map<Character, TcpConnection> connections = new ConcurrentHashMap<>();

    private final CountDownLatch closed = new CountDownLatch(1);

    private final EchoHandler handler = new EchoHandler() {

        @Override
        public void onData(Connection connection, ByteBuffer data) throws Exception {
            char name = (char) data.get(0);
            RearmOrderTest.this.connections.put(name, (TcpConnection) connection);
            CountDownLatch hold = RearmOrderTest.this.holds.get(name);
            if (hold != null) {
                RearmOrderTest.this.held.get(name).countDown();
                assertThat(hold.await(20, TimeUnit.SECONDS)).isTrue();
            }
        }

        @Override
        public void onClose(Connection connection) {
            super.onClose(connection);
            RearmOrderTest.this.closed.countDown();
        }
    };

    private SocketServer server;

    private Socket x;

    @BeforeEach
    void holdBothWorkers() throws Exception {
        assumeFalse(MisbehavingBackend.asked(), "arranges which notifications one dequeue takes together, which early wake-ups split");
        for (char name : "wzy".toCharArray()) {
            this.holds.put(name, new CountDownLatch(1));
            this.held.put(name, new CountDownLatch(1));
        }
        WorkerGroupSettings defaults = WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2);
        WorkerGroupSettings group = new WorkerGroupSettings(defaults.name(), 2, defaults.batchSize(), DEQUEUE_TIMEOUT,
                defaults.readBufferSize(), defaults.threadNamePrefix());
        this.server = this.fixture.start(List.of(group), ServerObserver.NONE, ServerFixture.tcp("order")
                .trigger(Trigger.LEVEL_ONESHOT).maxPendingWriteBytes(2L * BIG_REPLY).handler(this.handler).build());
        Socket w = this.fixture.connect(this.server, "order");
        Socket z = this.fixture.connect(this.server, "order");
        this.x = this.fixture.connectWithSmallWindow(this.server, "order");
        Socket y = this.fixture.connect(this.server, "order");
        ServerFixture.await(() -> this.server.listener("order").activeConnections() == 4, "four connections opened");
        // Both workers held, each in a handler: what arrives now waits on the port.
        w.getOutputStream().write('w');
        assertThat(this.held.get('w').await(10, TimeUnit.SECONDS)).isTrue();
        z.getOutputStream().write('z');
        assertThat(this.held.get('z').await(10, TimeUnit.SECONDS)).isTrue();
        this.x.getOutputStream().write('x');
        y.getOutputStream().write('y');
        // Loopback delivers at once; the pause lets both notifications wait on the port, which the
        // assertion below confirms (x handled in the same batch as y, before it).
        Thread.sleep(200);
        // The first worker takes x and y in one batch: it lets go of x, then is held by y's handler.
        this.holds.get('w').countDown();
        assertThat(this.held.get('y').await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(this.connections.get('x')).as("x was handled before y").isNotNull();
        // The second worker is free for the turns another thread starts.
        this.holds.get('z').countDown();
    }

    @AfterEach
    void stop() throws Exception {
        this.holds.values().forEach(CountDownLatch::countDown);
        this.fixture.close();
    }

    @Test
    @BlocksWorkers("holds the worker in onData to order the write after it")
    void aReplyWrittenFromAnotherThreadRightAfterTheLastOwnerLetGoIsSentWholeWithoutWaitingForADequeue() throws Exception {
        TcpConnection target = this.connections.get('x');
        target.write(ByteBuffer.allocate(BIG_REPLY));
        ServerFixture.await(() -> target.pendingWriteBytes() < BIG_REPLY && !target.isOwned(),
                "the write's turn sent what fitted and let go, waiting for room");
        this.holds.get('y').countDown();
        this.x.setSoTimeout(5000);
        assertThat(ServerFixture.readCount(this.x.getInputStream(), BIG_REPLY)).as("reply bytes").isEqualTo(BIG_REPLY);
        assertThat(this.handler.errors).isEmpty();
    }

    @Test
    @BlocksWorkers("holds the worker in onData to order the close after it")
    void aCloseFromAnotherThreadRightAfterTheLastOwnerLetGoClosesWithoutWaitingForADequeue() throws Exception {
        TcpConnection target = this.connections.get('x');
        target.close();
        this.holds.get('y').countDown();
        assertThat(this.closed.await(5, TimeUnit.SECONDS)).as("onClose called within five seconds").isTrue();
        this.x.setSoTimeout(5000);
        InputStream in = this.x.getInputStream();
        assertThat(in.read()).as("the peer sees the end of the stream").isEqualTo(-1);
        ServerFixture.await(() -> this.server.listener("order").activeConnections() == 3, "x left the listener");
    }
}
