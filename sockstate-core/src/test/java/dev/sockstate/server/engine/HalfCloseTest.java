package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Trigger;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Stage;
import dev.sockstate.server.StageContext;
import dev.sockstate.server.WorkerGroupSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Half-closing: the FIN a handler asks for, whichever thread and callback it asks from. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HalfCloseTest {

    private final ServerFixture fixture = new ServerFixture();

    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
        this.executor.shutdownNow();
    }

    @Test
    void shutdownOutputFromOnOpenSendsTheFinAfterTheGreeting() throws Exception {
        ConnectionHandler greeter = new ConnectionHandler() {

            @Override
            public void onOpen(Connection connection) {
                connection.write(ByteBuffer.wrap("bye".getBytes(StandardCharsets.US_ASCII)));
                connection.shutdownOutput();
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
            }
        };
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("greet").handler(greeter).build());
        assertGreetingThenEndOfStream(this.fixture.connect(server, "greet"));
    }

    @Test
    void shutdownOutputFromAHandlerOnTheExecutorSendsTheFinAfterTheReply() throws Exception {
        ConnectionHandler replier = (connection, data) -> {
            connection.write(ByteBuffer.wrap("bye".getBytes(StandardCharsets.US_ASCII)));
            connection.shutdownOutput();
        };
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("reply").handlerExecutor(this.executor).handler(replier).build());
        Socket client = this.fixture.connect(server, "reply");
        client.getOutputStream().write('?');
        assertGreetingThenEndOfStream(client);
    }

    @Test
    void aConnectionShutBothWaysThatItsHandlerKeepsCostsNoWorkerCpu() throws Exception {
        assertNoSpinOnceShutBothWays(List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)),
                ServerFixture.tcp("keep"));
    }

    @Test
    void aPersistentConnectionShutBothWaysThatItsHandlerKeepsCostsNoWorkerCpu() throws Exception {
        assertNoSpinOnceShutBothWays(List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)),
                ServerFixture.tcp("keep").trigger(Trigger.LEVEL_PERSISTENT));
    }

    @Test
    void anExclusiveEdgeConnectionShutBothWaysThatItsHandlerKeepsCostsNoWorkerCpu() throws Exception {
        assertNoSpinOnceShutBothWays(List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)),
                ServerFixture.tcp("keep").exclusiveEdge(true));
    }

    @Test
    void aPeerThatHalfClosesDuringAOneSecondCallOnTheExecutorCostsNoWorkerCpu() throws Exception {
        assertNoSpinDuringASlowCall(ServerFixture.tcp("slow"));
    }

    @Test
    void anExclusiveEdgePeerThatHalfClosesDuringAOneSecondCallOnTheExecutorCostsNoWorkerCpu() throws Exception {
        assertNoSpinDuringASlowCall(ServerFixture.tcp("slow").exclusiveEdge(true));
    }

    /**
     * Data and FIN are in when the first read fills its buffer; a stage then holds the input and lets
     * go in the same turn (as TLS does when its engine's step runs at once). No registration change
     * follows, so no new edge: the read that takes the rest must not take its short read for the end of
     * what the socket holds, since the notification it was the rest of carried the hang-up.
     */
    @Test
    void anExclusiveEdgeConnectionWhoseStageHoldsAndLetsGoInOneTurnStillHearsTheFin() throws Exception {
        int connections = 20;
        int bytes = 100_000;
        AtomicInteger hangups = new AtomicInteger();
        AtomicLong received = new AtomicLong();
        ConnectionHandler counter = new ConnectionHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                received.addAndGet(data.remaining());
                data.position(data.limit());
            }

            @Override
            public void onHangup(Connection connection) {
                hangups.incrementAndGet();
                connection.close();
            }
        };
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("held").exclusiveEdge(true).stage(() -> new Stage() {

            private boolean held;

            @Override
            public void data(StageContext context, ByteBuffer data) {
                context.passData(data);
                if (!this.held) {
                    this.held = true;
                    context.holdInput(true);
                    context.resume(() -> context.holdInput(false));
                }
            }
        }).handler(counter).build());
        for (int i = 0; i < connections; i++) {
            Socket client = this.fixture.connect(server, "held");
            client.getOutputStream().write(new byte[bytes]);
            client.shutdownOutput();
        }
        ServerFixture.await(() -> received.get() == (long) connections * bytes, "every byte read");
        ServerFixture.await(() -> hangups.get() == connections, "every FIN heard");
    }

    @Test
    void aHalfClosedLevelOneShotConnectionThatThePeerThenResetsIsClosed() throws Exception {
        assertResetAfterHalfCloseCloses(2, ServerFixture.tcp("half").trigger(Trigger.LEVEL_ONESHOT));
    }

    @Test
    void aHalfClosedEdgeOneShotConnectionThatThePeerThenResetsIsClosed() throws Exception {
        assertResetAfterHalfCloseCloses(2, ServerFixture.tcp("half").trigger(Trigger.EDGE_ONESHOT));
    }

    @Test
    void aHalfClosedEdgePersistentConnectionThatThePeerThenResetsIsClosed() throws Exception {
        assertResetAfterHalfCloseCloses(1, ServerFixture.tcp("half").trigger(Trigger.EDGE_PERSISTENT));
    }

    @Test
    void aHalfClosedConnectionItsHandlerKeepsHearsOfTheHangupOnceThroughAGracefulStop() throws Exception {
        AtomicInteger hangups = new AtomicInteger();
        CountDownLatch closed = new CountDownLatch(1);
        ConnectionHandler keeper = new ConnectionHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) {
            }

            @Override
            public void onHangup(Connection connection) {
                // Kept open: the handler still has something to say later.
                hangups.incrementAndGet();
            }

            @Override
            public void onClose(Connection connection) {
                closed.countDown();
            }
        };
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("half").handler(keeper).build());
        Socket client = this.fixture.connect(server, "half");
        client.shutdownOutput();
        ServerFixture.await(() -> hangups.get() == 1, "the hang-up was heard");
        server.stop(Duration.ofSeconds(5));
        assertThat(closed.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(hangups.get()).as("onHangup calls").isEqualTo(1);
    }

    @Test
    void aWriteAfterShutdownOutputIsDroppedAndTheConnectionStillReads() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch finished = new CountDownLatch(1);
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                String text = StandardCharsets.US_ASCII.decode(data).toString();
                seen.add(text);
                if (text.equals("fin")) {
                    connection.write(ByteBuffer.wrap("bye".getBytes(StandardCharsets.US_ASCII)));
                    connection.shutdownOutput();
                    // Too late: the FIN is asked for. Dropped, the connection itself is fine.
                    connection.write(ByteBuffer.wrap("late".getBytes(StandardCharsets.US_ASCII)));
                }
            }

            @Override
            public void onClose(Connection connection) {
                super.onClose(connection);
                finished.countDown();
            }
        };
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("half").handler(handler).build());
        Socket client = this.fixture.connect(server, "half");
        client.getOutputStream().write("fin".getBytes(StandardCharsets.US_ASCII));
        assertGreetingThenEndOfStream(client);
        client.getOutputStream().write("more".getBytes(StandardCharsets.US_ASCII));
        ServerFixture.await(() -> seen.contains("more"), "the connection still reads after its FIN");
        assertThat(handler.errors).as("what onError heard").isEmpty();
        assertThat(finished.getCount()).as("still open").isEqualTo(1);
        client.close();
        assertThat(finished.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(handler.errors).as("what onError heard").isEmpty();
    }

    /**
     * The peer half-closes, the handler keeps the connection with nothing to send; then the peer
     * resets it. epoll reports the error of a registration that watches no events, and the reset
     * closes the connection at once; Windows reports nothing for a disabled one, and the idle timeout
     * is what closes such a connection there.
     */
    private void assertResetAfterHalfCloseCloses(int workers, ListenerSettings.Builder listener) throws Exception {
        boolean epoll = ServerFixture.backend().edgeOnEveryArrival();
        listener.idleTimeout(Duration.ofSeconds(2));
        CountDownLatch hungUp = new CountDownLatch(1);
        CountDownLatch closedByReset = new CountDownLatch(1);
        ConnectionHandler keeper = new ConnectionHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) {
            }

            @Override
            public void onHangup(Connection connection) {
                hungUp.countDown();
            }

            @Override
            public void onClose(Connection connection) {
                closedByReset.countDown();
            }
        };
        SocketServer server = this.fixture.start(workers, listener.handler(keeper).build());
        Socket client = this.fixture.connect(server, "half");
        client.shutdownOutput();
        assertThat(hungUp.await(10, TimeUnit.SECONDS)).isTrue();
        ServerFixture.await(() -> server.listener("half").activeConnections() == 1, "the half-closed connection is kept");
        client.setSoLinger(true, 0);
        long reset = System.nanoTime();
        client.close();
        assertThat(closedByReset.await(10, TimeUnit.SECONDS)).as("the reset connection closed").isTrue();
        if (epoll) {
            assertThat(Duration.ofNanos(System.nanoTime() - reset)).as("closed by the reset, not by the idle timeout")
                    .isLessThan(Duration.ofMillis(1500));
        }
        assertThat(server.listener("half").activeConnections()).isZero();
    }

    private void assertNoSpinDuringASlowCall(ListenerSettings.Builder listener) throws Exception {
        CountDownLatch calling = new CountDownLatch(1);
        ConnectionHandler slow = (connection, data) -> {
            calling.countDown();
            Thread.sleep(1200);
            connection.write(data);
        };
        SocketServer server = this.fixture.start(2, listener.handlerExecutor(this.executor).handler(slow).build());
        Socket client = this.fixture.connect(server, "slow");
        client.getOutputStream().write('x');
        client.shutdownOutput();
        assertThat(calling.await(10, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(100);
        long before = ServerFixture.workerCpuNanos();
        Thread.sleep(900);
        long spent = ServerFixture.workerCpuNanos() - before;
        assertThat(Duration.ofNanos(spent)).as("worker CPU during the call, the peer half-closed").isLessThan(Duration.ofMillis(50));
        assertThat(client.getInputStream().read()).as("the reply").isEqualTo('x');
        assertThat(client.getInputStream().read()).as("then the close").isEqualTo(-1);
    }

    /** The peer half-closes; the handler answers with its own FIN but keeps the connection for a while. */
    private void assertNoSpinOnceShutBothWays(List<WorkerGroupSettings> groups, ListenerSettings.Builder listener) throws Exception {
        CountDownLatch kept = new CountDownLatch(1);
        List<Connection> connections = new CopyOnWriteArrayList<>();
        ConnectionHandler keeper = new ConnectionHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) {
            }

            @Override
            public void onHangup(Connection connection) {
                connections.add(connection);
                connection.shutdownOutput();
                kept.countDown();
            }
        };
        SocketServer server = this.fixture.start(groups, listener.handler(keeper).build());
        Socket client = this.fixture.connect(server, "keep");
        client.shutdownOutput();
        assertThat(kept.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(client.getInputStream().read()).as("the handler's FIN").isEqualTo(-1);
        Thread.sleep(100);
        long before = ServerFixture.workerCpuNanos();
        Thread.sleep(1000);
        long spent = ServerFixture.workerCpuNanos() - before;
        assertThat(Duration.ofNanos(spent)).as("worker CPU in 1 s with the connection shut both ways")
                .isLessThan(Duration.ofMillis(50));
        connections.get(0).close();
        ServerFixture.await(() -> server.listener("keep").activeConnections() == 0, "the kept connection closes when asked");
    }

    private static void assertGreetingThenEndOfStream(Socket client) throws IOException {
        client.setSoTimeout(3000);
        InputStream in = client.getInputStream();
        assertThat(new String(in.readNBytes(3), StandardCharsets.US_ASCII)).isEqualTo("bye");
        assertThat(in.read()).as("the FIN, with nothing else arriving").isEqualTo(-1);
    }
}
