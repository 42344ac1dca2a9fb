package dev.sockstate.server.engine;

import static dev.sockstate.port.SocketReads.readLine;
import static dev.sockstate.server.engine.ServerFixture.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.client.BlockingOperationException;
import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import dev.sockstate.server.framing.Framing;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Waiting for a client on the real backend: a handler may not wait on its worker for what only that
 * worker can complete (it is refused at once, naming the way out, instead of deadlocking), a
 * request's timeout bounds a wait even while the worker that reads its replies is held, and the
 * timeout counts from when the request left, not from the read whose handler made it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientWaitsTest {

    private final ServerFixture fixture = new ServerFixture();

    private final ClientTest.Connects connects = new ClientTest.Connects();

    private final ExecutorService executor = Executors.newFixedThreadPool(2);

    private final CountDownLatch released = new CountDownLatch(1);

    @AfterEach
    void stop() throws IOException {
        this.released.countDown();
        this.fixture.close();
        this.executor.shutdownNow();
    }

    @Test
    void aHandlerThatWaitsForAReplyWithATimeoutOnItsWorkerIsRefusedAtOnce() throws Exception {
        assertRefused((client) -> client.request("x").get(3, TimeUnit.SECONDS), "get(timeout)");
    }

    @Test
    void aHandlerThatWaitsForAReplyOnItsWorkerIsRefusedAtOnce() throws Exception {
        assertRefused((client) -> client.request("x").get(), "get()");
    }

    @Test
    void aHandlerThatJoinsATypedReplyOnItsWorkerIsRefusedAtOnce() throws Exception {
        assertRefused((client) -> client.request("x", String.class).join(), "join()");
    }

    @Test
    void aHandlerThatJoinsAConnectionOfItsOwnOnItsWorkerIsRefusedAtOnce() throws Exception {
        assertRefused((client) -> client.open().join(), "join()");
    }

    @Test
    void aHandlerOnAHandlerExecutorMayWaitForAReply() throws Exception {
        int port = backend(new Answering());
        AtomicReference<SocketClient> client = new AtomicReference<>();
        ConnectionHandler front = (connection, data) -> {
            try {
                ByteBuffer reply = client.get().request("x").get(5, TimeUnit.SECONDS);
                connection.send("got " + StandardCharsets.UTF_8.decode(reply));
            }
            catch (Exception ex) {
                connection.send("failed " + ex);
            }
        };
        SocketServer proxy = proxy(port, 2, Duration.ofMillis(500), ServerFixture.tcp("front").framing(Framing.line())
                .handlerExecutor(this.executor).handler(front));
        client.set(proxy.client("backend"));
        await(() -> client.get().connections().size() == 2, "the pool open");
        Socket peer = this.fixture.connect(proxy, "front");
        peer.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
        assertThat(readLine(peer)).isEqualTo("got echo x");
    }

    /**
     * A handler on a worker of a port per worker, whose pool has a connection on each port, waits in
     * the way given: before, the wait ran out (3 s) or never ended, as the worker it held was the one
     * that had to write the request and read its reply.
     */
    private void assertRefused(WaitOnWorker wait, String call) throws Exception {
        int port = backend(new Answering());
        AtomicReference<SocketClient> client = new AtomicReference<>();
        ConnectionHandler front = (connection, data) -> {
            long start = System.nanoTime();
            Throwable thrown = catchThrowable(() -> wait.on(client.get()));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            connection.send(((thrown != null) ? thrown.getClass().getSimpleName() + ": " + thrown.getMessage() : "returned")
                    + " | after " + millis + " ms");
        };
        SocketServer proxy = proxy(port, 2, Duration.ofMillis(500), ServerFixture.tcp("front").framing(Framing.line()).handler(front));
        client.set(proxy.client("backend"));
        await(() -> client.get().connections().size() == 2, "the pool open");
        Socket peer = this.fixture.connect(proxy, "front");
        peer.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
        String answer = readLine(peer);
        assertThat(answer).startsWith(BlockingOperationException.class.getSimpleName() + ": Client 'backend': " + call)
                .contains("worker thread", "ReplyHandler", "handler-executor");
        long millis = Long.parseLong(answer.substring(answer.lastIndexOf("after ") + 6, answer.lastIndexOf(" ms")));
        assertThat(millis).as("how long the refused wait took").isLessThan(1000);
        // The worker goes on serving: the pool answers the next request.
        assertThat(client.get().request("y").get(5, TimeUnit.SECONDS)).satisfies((reply) ->
                assertThat(StandardCharsets.UTF_8.decode(reply).toString()).isEqualTo("echo y"));
    }

    @Test
    @BlocksWorkers("holds the worker that would read the reply")
    void aWaitForAReplyWhoseWorkerIsHeldEndsAtTheRequestTimeoutAndBlamesNoBackend() throws Exception {
        Answering backend = new Answering();
        int port = backend(backend);
        AtomicReference<SocketClient> client = new AtomicReference<>();
        ConnectionHandler holding = (connection, data) -> {
            try {
                this.released.await(10, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            connection.send("released");
        };
        // One worker serves the front and the pool's connection.
        SocketServer proxy = proxy(port, 1, Duration.ofMillis(300), ServerFixture.tcp("front").framing(Framing.line()).handler(holding));
        client.set(proxy.client("backend"));
        await(() -> client.get().connections().size() == 1, "the pool open");
        // The request leaves, and its reply comes after 400 ms: by then a handler holds the worker that would read it.
        CompletableFuture<ByteBuffer> slow = client.get().request("slow");
        await(() -> backend.lines.contains("slow"), "the backend got the request");
        Socket peer = this.fixture.connect(proxy, "front");
        peer.getOutputStream().write("hold\n".getBytes(StandardCharsets.UTF_8));
        long start = System.nanoTime();
        Throwable failure = catchThrowable(() -> slow.get(5, TimeUnit.SECONDS));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(failure).isInstanceOf(ExecutionException.class).cause().isInstanceOf(ClientException.class)
                .hasMessageContaining("no reply read within the request timeout of 300 ms")
                .hasMessageContaining("has not taken its turn").hasMessageNotContaining("no reply from");
        assertThat(millis).as("the wait, the worker held all along").isLessThan(1500);
        this.released.countDown();
        assertThat(readLine(peer)).isEqualTo("released");
        // The late reply completed nothing, and the connection stays, answering the next request.
        assertThat(StandardCharsets.UTF_8.decode(client.get().request("next").get(5, TimeUnit.SECONDS)).toString()).isEqualTo("echo next");
        assertThat(this.connects.outcomes).containsExactly("connected");
    }

    @Test
    @BlocksWorkers("a handler works on after its request, past the request timeout")
    void aRequestsTimeoutCountsFromWhenItLeftNotFromTheReadWhoseHandlerMadeIt() throws Exception {
        int port = backend(new Answering());
        AtomicReference<SocketClient> client = new AtomicReference<>();
        ConnectionHandler working = (connection, data) -> {
            client.get().request("x", (reply, failure) -> connection.send((failure != null) ? "failed: " + failure.getMessage()
                    : "got " + StandardCharsets.UTF_8.decode(reply)));
            // Work after the request, twice its timeout: the request leaves when the worker is free.
            sleep(600);
        };
        SocketServer proxy = proxy(port, 1, Duration.ofMillis(300), ServerFixture.tcp("front").framing(Framing.line()).handler(working));
        client.set(proxy.client("backend"));
        await(() -> client.get().connections().size() == 1, "the pool open");
        Socket peer = this.fixture.connect(proxy, "front");
        peer.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
        assertThat(readLine(peer)).isEqualTo("got echo x");
        assertThat(this.connects.outcomes).containsExactly("connected");
    }

    /** @return a server whose workers, a port each, serve the listener given and a client of the backend with a pool of as many */
    private SocketServer proxy(int backendPort, int workers, Duration requestTimeout, ListenerSettings.Builder front) {
        return this.fixture.start(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, workers)
                .withPortPerWorker(true)), List.of(ClientSettings.builder("backend").address("127.0.0.1", backendPort).poolSize(workers)
                .framing(Framing.line()).requestTimeout(requestTimeout).build()), this.connects, front.build());
    }

    /** @return the port of a backend listener with that handler, line-framed, started */
    private int backend(ConnectionHandler handler) {
        SocketServer backend = this.fixture.start(1, ListenerSettings.tcp("backend").address(InetAddress.getLoopbackAddress())
                .framing(Framing.line()).handler(handler).build());
        return backend.listener("backend").portNumber();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** A wait on a client, made by a handler. */
    @FunctionalInterface
    private interface WaitOnWorker {

        void on(SocketClient client) throws Exception;
    }

    /** Answers each line with "echo " and the line, in order; "slow" after 400 ms. Notes the lines it got. */
    static final class Answering implements ConnectionHandler {

        final Queue<String> lines = new ConcurrentLinkedQueue<>();

        @Override
        public void onData(Connection connection, ByteBuffer data) {
            String line = StandardCharsets.UTF_8.decode(data).toString();
            this.lines.add(line);
            if (line.equals("slow")) {
                // Held up, as a backend that answers in order holds up every later answer too.
                sleep(400);
            }
            connection.send("echo " + line);
        }
    }
}
