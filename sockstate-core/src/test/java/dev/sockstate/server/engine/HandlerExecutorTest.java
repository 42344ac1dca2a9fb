package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.port.Trigger;
import dev.sockstate.server.Connection;
import dev.sockstate.server.DatagramHandler;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Setting;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Listeners whose handlers run on an executor that may refuse work: a bounded one, as production has. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HandlerExecutorTest {

    private final ServerFixture fixture = new ServerFixture();

    /** One task at a time, each on a thread of its own, and no queue: a task while another runs is refused. */
    private final OneAtATime executor = new OneAtATime();

    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stop() throws Exception {
        this.release.countDown();
        this.fixture.close();
    }

    @Test
    @BlocksWorkers("its executor takes one task at a time and waits for it")
    void aRefusedOpenFailsThatConnectionOnlyAndTheListenerGoesOn() throws Exception {
        CountDownLatch firstOpened = new CountDownLatch(1);
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onOpen(Connection connection) throws Exception {
                super.onOpen(connection);
                if (connection.id() == 1) {
                    firstOpened.countDown();
                    HandlerExecutorTest.this.release.await(30, TimeUnit.SECONDS);
                }
            }
        };
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("busy").handlerExecutor(this.executor).handler(handler).build());
        Socket first = this.fixture.connect(server, "busy");
        assertThat(firstOpened.await(10, TimeUnit.SECONDS)).isTrue();
        Socket refused = this.fixture.connect(server, "busy");
        assertThat(readToEnd(refused)).as("the refused connection is closed").isEmpty();
        ServerFixture.await(() -> server.listener("busy").activeConnections() == 1, "the refused connection is gone");
        this.release.countDown();
        this.executor.awaitIdle();
        first.getOutputStream().write("one".getBytes(StandardCharsets.US_ASCII));
        assertThat(read(first, 3)).isEqualTo("one");
        this.executor.awaitIdle();
        // From here on a task waits for the one before it: a turn the first connection still takes
        // (a re-arm's notification on Windows' rules, say) cannot be what refuses the later one.
        this.executor.refusing = false;
        Socket later = this.fixture.connect(server, "busy");
        later.getOutputStream().write("two".getBytes(StandardCharsets.US_ASCII));
        assertThat(read(later, 3)).as("the listener still accepts and serves").isEqualTo("two");
        assertThat(server.listener("busy").handlerErrors()).as("the refusal is counted").isEqualTo(1);
        assertThat(handler.opened.get()).as("the refused connection never opened").isEqualTo(2);
    }

    @Test
    @BlocksWorkers("its executor takes one task at a time and waits for it")
    void aRefusedReadFailsThatConnectionWithTheRejectionAndTheListenerGoesOn() throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                if (data.get(data.position()) == 'w') {
                    busy.countDown();
                    HandlerExecutorTest.this.release.await(30, TimeUnit.SECONDS);
                }
                super.onData(connection, data);
            }
        };
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("busy").handlerExecutor(this.executor).handler(handler).build());
        Socket waiting = this.fixture.connect(server, "busy");
        ServerFixture.await(() -> handler.opened.get() == 1, "the first opened");
        this.executor.awaitIdle();
        Socket refused = this.fixture.connect(server, "busy");
        ServerFixture.await(() -> handler.opened.get() == 2, "both opened");
        this.executor.awaitIdle();
        waiting.getOutputStream().write("wait".getBytes(StandardCharsets.US_ASCII));
        assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
        refused.getOutputStream().write("refused".getBytes(StandardCharsets.US_ASCII));
        assertThat(readToEnd(refused)).isEmpty();
        ServerFixture.await(() -> handler.closed.get() == 1, "the refused connection is closed");
        assertThat(handler.errors).singleElement().isInstanceOf(RejectedExecutionException.class);
        this.release.countDown();
        assertThat(read(waiting, 4)).isEqualTo("wait");
        this.executor.awaitIdle();
        // From here on a task waits for the one before it: a turn the waiting connection still takes
        // (the end of its hand-off, a re-arm) cannot be what refuses the later one.
        this.executor.refusing = false;
        Socket later = this.fixture.connect(server, "busy");
        later.getOutputStream().write("later".getBytes(StandardCharsets.US_ASCII));
        assertThat(read(later, 5)).isEqualTo("later");
    }

    @Test
    void aRefusedDatagramIsDroppedAndCountedAndTheListenerGoesOn() throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        List<String> handled = new CopyOnWriteArrayList<>();
        DatagramHandler handler = (endpoint, data, sender) -> {
            String text = StandardCharsets.US_ASCII.decode(data).toString();
            if (text.equals("wait")) {
                busy.countDown();
                this.release.await(30, TimeUnit.SECONDS);
            }
            handled.add(text);
            endpoint.send(StandardCharsets.US_ASCII.encode(text), sender);
        };
        SocketServer server = this.fixture.start(2, ServerFixture.udp("udp").handlerExecutor(this.executor).handler(handler).build());
        InetSocketAddress target = new InetSocketAddress(((InetSocketAddress) server.listener("udp").address()).getAddress(),
                server.listener("udp").portNumber());
        try (DatagramSocket client = new DatagramSocket()) {
            client.setSoTimeout(10_000);
            send(client, target, "wait");
            assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
            send(client, target, "dropped");
            ServerFixture.await(() -> server.listener("udp").handlerErrors() == 1, "the refusal is counted");
            this.release.countDown();
            assertThat(receive(client)).isEqualTo("wait");
            this.executor.awaitIdle();
            send(client, target, "after");
            assertThat(receive(client)).as("the listener goes on").isEqualTo("after");
        }
        assertThat(handled).containsExactly("wait", "after");
    }

    @Test
    void datagramsBeyondTheLimitInFlightAreDroppedAndCounted() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        List<String> handled = new CopyOnWriteArrayList<>();
        DatagramHandler handler = (endpoint, data, sender) -> {
            started.countDown();
            this.release.await(30, TimeUnit.SECONDS);
            handled.add(StandardCharsets.US_ASCII.decode(data).toString());
        };
        ExecutorService queueing = Executors.newSingleThreadExecutor();
        try {
            SocketServer server = this.fixture.start(2, ServerFixture.udp("udp").handlerExecutor(queueing).maxDatagramsInFlight(10)
                    .handler(handler).build());
            InetSocketAddress target = new InetSocketAddress(((InetSocketAddress) server.listener("udp").address()).getAddress(),
                    server.listener("udp").portNumber());
            try (DatagramSocket client = new DatagramSocket()) {
                send(client, target, "first");
                assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
                for (int i = 0; i < 49; i++) {
                    send(client, target, "more " + i);
                }
                ServerFixture.await(() -> server.listener("udp").handlerErrors() == 40, "forty datagrams dropped and counted");
                this.release.countDown();
                ServerFixture.await(() -> handled.size() == 10, "ten datagrams handled");
                Thread.sleep(100);
                assertThat(handled).hasSize(10).startsWith("first", "more 0");
            }
        }
        finally {
            queueing.shutdownNow();
        }
    }

    @Test
    void anEdgeTriggeredConnectionOnTheExecutorReadsEverythingThatArrivedDuringTheCall() throws Exception {
        assertEverythingEchoed(ServerFixture.tcp("edge").trigger(Trigger.EDGE_PERSISTENT));
    }

    @Test
    void anExclusiveEdgeConnectionOnTheExecutorReadsEverythingThatArrivedDuringTheCall() throws Exception {
        assertEverythingEchoed(ServerFixture.tcp("edge").exclusiveEdge(true));
    }

    @Test
    void anEdgeOneShotConnectionOnTheExecutorReadsEverythingThatArrivedDuringTheCall() throws Exception {
        assertEverythingEchoed(ServerFixture.tcp("edge").trigger(Trigger.EDGE_ONESHOT));
    }

    @Test
    void levelPersistentWithAHandlerExecutorIsRefusedSayingWhy() {
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ServerFixture.tcp("poll").trigger(Trigger.LEVEL_PERSISTENT).handlerExecutor(Runnable::run)
                        .handler(new EchoHandler()).build())
                .satisfies((refused) -> assertThat(refused.setting()).isEqualTo(Setting.TRIGGER))
                .withMessageContaining("stays armed while the executor runs the handler");
    }

    /** Reads 64 bytes at a time, so that most of what the peer sent is still unread after each hand-off. */
    private void assertEverythingEchoed(ListenerSettings.Builder listener) throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            WorkerGroupSettings group = new WorkerGroupSettings(ListenerSettings.DEFAULT_GROUP, 1, 64, Duration.ofSeconds(1), 64,
                    "sockstate-");
            SocketServer server = this.fixture.start(List.of(group), listener.handlerExecutor(pool).handler(new EchoHandler()).build());
            Socket client = this.fixture.connect(server, "edge");
            byte[] payload = new byte[5000];
            new java.util.Random(7).nextBytes(payload);
            client.getOutputStream().write(payload);
            client.setSoTimeout(5000);
            assertThat(client.getInputStream().readNBytes(payload.length)).isEqualTo(payload);
        }
        finally {
            pool.shutdownNow();
        }
    }

    private static void send(DatagramSocket client, InetSocketAddress target, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        client.send(new DatagramPacket(bytes, bytes.length, target));
    }

    private static String receive(DatagramSocket client) throws IOException {
        DatagramPacket packet = new DatagramPacket(new byte[256], 256);
        client.receive(packet);
        return new String(packet.getData(), 0, packet.getLength(), StandardCharsets.US_ASCII);
    }

    private static String read(Socket client, int length) throws IOException {
        return new String(client.getInputStream().readNBytes(length), StandardCharsets.US_ASCII);
    }

    private static String readToEnd(Socket client) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        try {
            client.getInputStream().transferTo(all);
        }
        catch (IOException ex) {
            // reset by the abort: what arrived before is what counts
        }
        return all.toString(StandardCharsets.US_ASCII);
    }

    /** Runs one task at a time, each on a new thread, and refuses a task while another runs (or, not refusing, makes it wait). */
    static final class OneAtATime implements Executor {

        private final Semaphore free = new Semaphore(1);

        /** Whether a task given while another runs is refused; else the caller waits for the one running. */
        volatile boolean refusing = true;

        @Override
        public void execute(Runnable task) {
            if (!this.refusing) {
                this.free.acquireUninterruptibly();
            }
            else if (!this.free.tryAcquire()) {
                throw new RejectedExecutionException("busy with another task");
            }
            new Thread(() -> {
                try {
                    task.run();
                }
                finally {
                    this.free.release();
                }
            }, "one-at-a-time").start();
        }

        void awaitIdle() throws InterruptedException {
            ServerFixture.await(() -> this.free.availablePermits() == 1, "the executor is idle");
        }
    }
}
