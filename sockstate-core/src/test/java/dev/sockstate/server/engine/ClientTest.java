package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.sockstate.server.engine.ServerFixture.await;

import dev.sockstate.port.Backend;
import dev.sockstate.port.ForwardingBackend;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.RefusingPorts;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Stage;
import dev.sockstate.server.StageContext;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.client.Backoff;
import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import dev.sockstate.server.engine.turn.Worker;
import dev.sockstate.server.framing.FrameDecoder;
import dev.sockstate.server.framing.FrameEncoder;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.framing.FramingException;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A server's outbound clients on the real backend: requests pipelined on a pool, refused and
 * unanswered connects, failover, a backend that restarts, a bad reply, request timeouts, the stop.
 */
class ClientTest {

    /** A backoff short enough that a test sees the client connect again at once. */
    private static final Backoff QUICK = new Backoff(Duration.ofMillis(20), Duration.ofMillis(100), 0);

    private final ServerFixture fixture = new ServerFixture();

    private final Connects connects = new Connects();

    @AfterEach
    void stop() throws IOException {
        this.fixture.close();
    }

    @Test
    void requestsFromManyThreadsPipelineOnThePoolAndEachGetsItsOwnReply() throws Exception {
        int port = backend(new LineEcho());
        SocketClient client = startClient(ClientSettings.builder("echo").address("127.0.0.1", port).poolSize(2)
                .framing(Framing.line()));
        awaitOpen(client, 2);
        List<CompletableFuture<String>> replies = new ArrayList<>();
        List<String> sent = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        Queue<CompletableFuture<String>> all = new ConcurrentLinkedQueue<>();
        for (int t = 0; t < 4; t++) {
            int thread = t;
            threads.add(new Thread(() -> {
                for (int i = 0; i < 500; i++) {
                    all.add(client.request("t" + thread + "-" + i, String.class).thenApply((reply) -> reply));
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join(10_000);
        }
        for (int i = 0; i < 100; i++) {
            sent.add("m" + i);
            replies.add(client.request("m" + i, String.class));
        }
        for (int i = 0; i < sent.size(); i++) {
            assertThat(replies.get(i).get(10, TimeUnit.SECONDS)).isEqualTo("echo " + sent.get(i));
        }
        assertThat(all).hasSize(2000);
        for (CompletableFuture<String> reply : all) {
            assertThat(reply.get(10, TimeUnit.SECONDS)).startsWith("echo t");
        }
        ByteBuffer raw = client.request("raw").get(10, TimeUnit.SECONDS);
        assertThat(StandardCharsets.UTF_8.decode(raw).toString()).isEqualTo("echo raw");
        assertThat(client.connections()).hasSize(2).allSatisfy((connection) -> {
            assertThat(connection.clientName()).isEqualTo("echo");
            assertThat(connection.listenerName()).isNull();
            assertThat(connection.remoteAddress()).isEqualTo(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        });
        assertThat(this.connects.outcomes).containsOnly("connected");
    }

    /** A client's connections take stages as a listener's do: here one that upper-cases every byte, both ways. */
    @Test
    void aClientsStagesStandBetweenItsSocketAndItsFramingBothWays() throws Exception {
        int port = backend(new LineEcho());
        SocketClient client = startClient(ClientSettings.builder("shouting").address("127.0.0.1", port).framing(Framing.line())
                .stage(() -> new Stage() {

                    @Override
                    public void data(StageContext context, ByteBuffer data) {
                        context.passData(upperCased(data));
                    }

                    @Override
                    public void write(StageContext context, ByteBuffer data) {
                        context.write(upperCased(data));
                    }
                }));
        awaitOpen(client, 1);
        assertThat(client.request("hi", String.class).get(10, TimeUnit.SECONDS)).isEqualTo("ECHO HI");
    }

    private static ByteBuffer upperCased(ByteBuffer data) {
        return StandardCharsets.US_ASCII.encode(StandardCharsets.US_ASCII.decode(data).toString().toUpperCase(Locale.ROOT));
    }

    /**
     * One client whose connects hang (a name lookup that takes its time, held here in the connect
     * call itself) delays no other client's: while its two connects wait (both of the two connect
     * threads there were, each holding one), another client opens its connection.
     */
    @Test
    void aClientWhoseConnectsHangDelaysNoOtherClientsConnect() throws Exception {
        int slow = backend(new LineEcho());
        int fast = backend(new LineEcho());
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Backend real = ServerFixture.backend();
        NativeSockets sockets = real.sockets();
        NativeSockets holding = (NativeSockets) Proxy.newProxyInstance(NativeSockets.class.getClassLoader(),
                new Class<?>[] { NativeSockets.class }, (proxy, method, arguments) -> {
                    if (method.getName().equals("connect") && arguments[1] instanceof InetSocketAddress target && target.getPort() == slow) {
                        held.countDown();
                        release.await(30, TimeUnit.SECONDS);
                    }
                    try {
                        return method.invoke(sockets, arguments);
                    }
                    catch (InvocationTargetException ex) {
                        throw ex.getCause();
                    }
                });
        Backend holdingBackend = new ForwardingBackend(real) {
            @Override
            public NativeSockets sockets() {
                return holding;
            }
        };
        try {
            SocketServer server = this.fixture.start(holdingBackend, List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)),
                    List.of(lineClient("slow", slow).poolSize(2).build(), lineClient("fast", fast).build()), ServerObserver.NONE);
            assertThat(held.await(5, TimeUnit.SECONDS)).as("the slow client's connect is held").isTrue();
            SocketClient other = server.client("fast");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (other.connections().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(other.connections()).as("the other client's connection, while the first client's connects hang").hasSize(1);
        }
        finally {
            release.countDown();
        }
    }

    @Test
    void aRefusedConnectIsTriedAgainWithBackoffAndNamedToWhoeverSends() throws Exception {
        int port = freePort();
        SocketClient client = startClient(ClientSettings.builder("down").address("127.0.0.1", port)
                .reconnect(new Backoff(Duration.ofMillis(20), Duration.ofMillis(80), 0)).framing(Framing.line()));
        await(() -> count("refused") >= 3, "three refused connects");
        assertThatThrownBy(() -> client.send("hello")).isInstanceOf(ClientException.class)
                .hasMessageContaining("Client 'down' has no open connection: Client 'down' could not connect (127.0.0.1:" + port + ": ")
                .satisfies((failure) -> assertThat(((ClientException) failure).clientName()).isEqualTo("down"));
        CompletableFuture<String> reply = client.request("hello", String.class);
        assertThatThrownBy(() -> reply.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(ClientException.class).hasMessageContaining("could not connect");
        assertThat(this.connects.outcomes).doesNotContain("connected");
    }

    @Test
    void aClientThatSentARequestRefusesAMessageOwedNoReplySoThatEveryReplyAnswersItsOwnRequest() throws Exception {
        int port = backend(new LineEcho());
        SocketClient client = startClient(lineClient("asking", port).poolSize(1));
        awaitOpen(client, 1);
        assertThat(StandardCharsets.UTF_8.decode(client.request("a").get(5, TimeUnit.SECONDS)).toString()).isEqualTo("echo a");
        assertThatThrownBy(() -> client.send("b")).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("Client 'asking' sends requests on its pool").hasMessageContaining("open()");
        // Had the message gone out, its reply ("echo b") would have answered this request.
        assertThat(StandardCharsets.UTF_8.decode(client.request("c").get(5, TimeUnit.SECONDS)).toString()).isEqualTo("echo c");
    }

    @Test
    void aClientThatSentAMessageOwedNoReplyRefusesARequest() throws Exception {
        LineEcho backend = new LineEcho();
        int port = backend(backend);
        SocketClient client = startClient(lineClient("telling", port).poolSize(1));
        awaitOpen(client, 1);
        client.send("hold this");
        assertThatThrownBy(() -> client.request("a")).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("Client 'telling' sends messages owed no reply on its pool");
        assertThatThrownBy(() -> client.request("a", (reply, failure) -> { })).isInstanceOf(IllegalStateException.class);
        await(() -> backend.held.contains("hold this"), "the message sent");
    }

    @Test
    void aClientsIdleTimeoutClosesItsIdleConnectionOnAServerWhoseListenersHaveNoTimeouts() throws Exception {
        int port = backend(new LineEcho());
        // The server has no listener at all, so none with a timeout: the client's own is applied all the same.
        SocketClient client = startClient(lineClient("idle", port).poolSize(1).idleTimeout(Duration.ofMillis(300)).reconnect(QUICK));
        awaitOpen(client, 1);
        long start = System.nanoTime();
        await(() -> count("connected") >= 2, "the idle connection closed and connected again");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("when the idle connection was closed").isLessThan(2_000);
    }

    @Test
    void aBackendThatAcceptsAndClosesAtOnceIsConnectedToWithAGrowingBackoff() throws Exception {
        try (ServerSocket closing = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!closing.isClosed()) {
                    try {
                        closing.accept().close();
                    }
                    catch (IOException ex) {
                        // closed at the test's end
                    }
                }
            }, "accept-and-close");
            acceptor.setDaemon(true);
            acceptor.start();
            startClient(ClientSettings.builder("rejected").address("127.0.0.1", closing.getLocalPort()).framing(Framing.line())
                    .reconnect(new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10), 0)));
            Thread.sleep(3_000);
            // Waits of 200, 400, 800, 1600 ms: at most 5 connects in 3 s (every 200 ms for ever, 15, before).
            assertThat(count("connected")).as("connects in 3 s").isBetween(2L, 6L);
        }
    }

    @Test
    void aPoolWhoseConnectionsOweTheirMostRequestsFailsTheNextAtOnceNamingTheLimit() throws Exception {
        LineEcho backend = new LineEcho();
        int port = backend(backend);
        SocketClient client = startClient(lineClient("busy", port).poolSize(1).maxPendingRequests(3));
        awaitOpen(client, 1);
        List<CompletableFuture<ByteBuffer>> owed = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            owed.add(client.request("hold " + i));
        }
        await(() -> backend.held.size() == 3, "three requests the backend holds");
        CompletableFuture<ByteBuffer> fourth = client.request("one more");
        assertThat(fourth).isCompletedExceptionally();
        assertThatThrownBy(fourth::get).cause().isInstanceOf(ClientException.class)
                .hasMessageContaining("max-pending-requests").hasMessageContaining("does not keep up");
        assertThat(owed).noneMatch(CompletableFuture::isDone);
    }

    @Test
    void aBackendThatReadsNothingHoldsNoMoreRequestsInTheHeapThanTheClientsLimit() throws Exception {
        try (ServerSocket deaf = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            List<Socket> accepted = new ArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    Socket socket = deaf.accept();
                    // A small window: the backend's socket takes little, and reads nothing.
                    socket.setReceiveBufferSize(4096);
                    accepted.add(socket);
                }
                catch (IOException ex) {
                    // closed at the test's end
                }
            }, "deaf-backend");
            acceptor.setDaemon(true);
            acceptor.start();
            long limit = 256 * 1024;
            SocketClient client = startClient(ClientSettings.builder("deaf").address("127.0.0.1", deaf.getLocalPort())
                    .framing(Framing.line().withMaxFrameSize(64 * 1024)).maxPendingWriteBytes(limit));
            awaitOpen(client, 1);
            String request = "x".repeat(32 * 1024);
            CompletableFuture<ByteBuffer> refused = null;
            // 32 MiB of requests at most: before, every one of them was queued in the heap.
            for (int i = 0; i < 1024 && refused == null; i++) {
                CompletableFuture<ByteBuffer> reply = client.request(request);
                if (reply.isCompletedExceptionally()) {
                    refused = reply;
                }
            }
            assertThat(refused).as("a request refused at once").isNotNull();
            assertThatThrownBy(refused::get).cause().isInstanceOf(ClientException.class).hasMessageContaining("max-pending-write-bytes");
            assertThat(client.connections().get(0).pendingWriteBytes()).as("request bytes queued").isLessThanOrEqualTo(limit + 64 * 1024);
        }
    }

    @Test
    void aClientsRequestsTimeOutAfterTenSecondsUnlessToldOtherwise() {
        assertThat(ClientSettings.builder("plain").address("127.0.0.1", 6379).build().requestTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(ClientSettings.builder("patient").address("127.0.0.1", 6379).requestTimeout(Duration.ZERO).build().requestTimeout())
                .isNull();
    }

    @Test
    @BlocksWorkers("the connect's counting waits on its worker until the client was made")
    void aFailedConnectIsNamedToWhoeverSendsByTheTimeItIsCounted() throws Exception {
        int port = freePort();
        AtomicReference<SocketClient> client = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Queue<String> seenAsCounted = new ConcurrentLinkedQueue<>();
        this.connects.counting = (outcome) -> {
            try {
                started.await(5, TimeUnit.SECONDS);
                client.get().send("x");
            }
            catch (ClientException ex) {
                seenAsCounted.add(outcome + ": " + ex.getMessage());
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        };
        client.set(startClient(ClientSettings.builder("named").address("127.0.0.1", port)
                .reconnect(new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(5), 0)).framing(Framing.line())));
        started.countDown();
        await(() -> !seenAsCounted.isEmpty(), "a counted connect");
        assertThat(seenAsCounted.peek()).startsWith("refused: Client 'named' has no open connection: Client 'named' could not connect (127.0.0.1:" + port + ": ");
    }

    @Test
    void anOpenThatFailsIsCountedBeforeItsFutureFails() throws Exception {
        int port = freePort();
        SocketClient client = startClient(ClientSettings.builder("own").address("127.0.0.1", port).poolSize(0).framing(Framing.line()));
        CompletableFuture<Long> countedWhenHeard = client.open().handle((connection, failure) -> count("refused"));
        assertThat(countedWhenHeard.get(5, TimeUnit.SECONDS)).as("refused connects counted when the open's future failed").isEqualTo(1);
    }

    @Test
    void theAddressesAreTriedInOrderUntilOneAnswers() throws Exception {
        int down = freePort();
        int up = backend(new LineEcho());
        SocketClient client = startClient(ClientSettings.builder("failover").address("127.0.0.1", down).address("127.0.0.1:" + up)
                .framing(Framing.line()));
        assertThat(client.request("ping", String.class).exceptionally((ex) -> null).get(5, TimeUnit.SECONDS)).isIn("echo ping", null);
        awaitOpen(client, 1);
        assertThat(client.request("ping", String.class).get(5, TimeUnit.SECONDS)).isEqualTo("echo ping");
        assertThat(this.connects.outcomes).startsWith("refused", "connected");
    }

    @Test
    void aConnectThatGetsNoAnswerEndsAtTheConnectTimeout() throws Exception {
        try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            List<Socket> backlog = fillBacklog(full);
            try {
                SocketClient client = startClient(ClientSettings.builder("silent").address("127.0.0.1", full.getLocalPort())
                        .connectTimeout(Duration.ofMillis(300)).reconnect(new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(5), 0)));
                await(() -> count("timeout") >= 1, "a timed-out connect");
                assertThatThrownBy(() -> client.send("x")).isInstanceOf(ClientException.class)
                        .hasMessageContaining("no answer from 127.0.0.1:" + full.getLocalPort() + " within the connect timeout of 300 ms");
            }
            finally {
                for (Socket socket : backlog) {
                    socket.close();
                }
            }
        }
    }

    @Test
    void aBackendThatRestartsFailsTheRequestsItOwedAndIsConnectedAgain() throws Exception {
        LineEcho echo = new LineEcho();
        int port = backend(echo);
        SocketServer backend = this.fixture.lastStarted();
        SocketClient client = startClient(ClientSettings.builder("restarting").address("127.0.0.1", port)
                .reconnect(QUICK).framing(Framing.line()));
        awaitOpen(client, 1);
        List<CompletableFuture<String>> owed = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            owed.add(client.request("hold " + i, String.class));
        }
        await(() -> echo.held.size() == 20, "the backend to hold 20 requests");
        backend.stop(Duration.ZERO);
        for (CompletableFuture<String> request : owed) {
            assertThatThrownBy(() -> request.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(ClientException.class)
                    .hasMessageContaining("Client 'restarting': the connection to 127.0.0.1:" + port);
        }
        this.fixture.start(1, ListenerSettings.tcp("backend").address(InetAddress.getLoopbackAddress()).portNumber(port)
                .framing(Framing.line()).handler(new LineEcho()).build());
        await(() -> client.connections().size() == 1, "the client to connect again");
        assertThat(client.request("back", String.class).get(5, TimeUnit.SECONDS)).isEqualTo("echo back");
        assertThat(count("connected")).isEqualTo(2);
    }

    @Test
    void aRequestWithoutAReplyWithinTheTimeoutFailsAndItsConnectionStartsAgain() throws Exception {
        LineEcho echo = new LineEcho();
        int port = backend(echo);
        SocketClient client = startClient(lineClient("impatient", port)
                .requestTimeout(Duration.ofMillis(200)).reconnect(QUICK));
        awaitOpen(client, 1);
        Connection first = client.connection();
        CompletableFuture<String> held = client.request("hold this", String.class);
        CompletableFuture<String> after = client.request("hold this too", String.class);
        assertThatThrownBy(() -> held.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(ClientException.class)
                .hasMessage("Client 'impatient': no reply from 127.0.0.1:" + port + " within the request timeout of 200 ms");
        // Its reply may still come, and would answer the next request: the connection was closed, and the later request failed with it.
        assertThatThrownBy(() -> after.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(ClientException.class)
                .hasMessageContaining("within the request timeout of 200 ms");
        await(() -> !first.isOpen() && client.connections().size() == 1, "the client to connect again");
        assertThat(client.request("fresh", String.class).get(5, TimeUnit.SECONDS)).isEqualTo("echo fresh");
        assertThat(count("connected")).isEqualTo(2);
    }

    @Test
    void aReplyHandlerIsHandedEachReplyFrameAsReadOnTheConnectionsWorkerAndEachFailure() throws Exception {
        LineEcho echo = new LineEcho();
        int port = backend(echo);
        SocketClient client = startClient(lineClient("handed", port)
                .requestTimeout(Duration.ofSeconds(2)).reconnect(QUICK));
        awaitOpen(client, 1);
        Queue<String> replies = new ConcurrentLinkedQueue<>();
        CountDownLatch three = new CountDownLatch(3);
        for (String line : List.of("a", "b", "c")) {
            client.request(line, (reply, failure) -> {
                // The frame as the connection read it: a view of the worker's (direct) read buffer, not a copy.
                replies.add(StandardCharsets.UTF_8.decode(reply).toString() + " on " + Thread.currentThread().getName()
                        + (reply.isDirect() ? ", in place" : ", copied") + ((failure == null) ? "" : " " + failure));
                three.countDown();
            });
        }
        assertThat(three.await(5, TimeUnit.SECONDS)).as("three replies").isTrue();
        assertThat(replies).hasSize(3).allSatisfy((reply) -> assertThat(reply).matches("echo [abc] on sockstate-default-[12], in place"))
                .extracting((reply) -> reply.substring(0, 6)).containsExactly("echo a", "echo b", "echo c");

        // A handler that throws is logged; its connection goes on, and the next reply is handed on as ever.
        Connection before = client.connection();
        CompletableFuture<String> thrown = new CompletableFuture<>();
        client.request("boom", (reply, failure) -> {
            thrown.complete(StandardCharsets.UTF_8.decode(reply).toString());
            throw new IllegalStateException("a handler's own failure");
        });
        assertThat(thrown.get(5, TimeUnit.SECONDS)).isEqualTo("echo boom");
        CompletableFuture<String> next = new CompletableFuture<>();
        client.request("after", (reply, failure) -> next.complete(StandardCharsets.UTF_8.decode(reply).toString()));
        assertThat(next.get(5, TimeUnit.SECONDS)).isEqualTo("echo after");
        assertThat(before.isOpen()).isTrue();

        // A request without a reply within the timeout: the handler hears why, once.
        AtomicInteger calls = new AtomicInteger();
        CompletableFuture<Throwable> timedOut = new CompletableFuture<>();
        client.request("hold on", (reply, failure) -> {
            calls.incrementAndGet();
            timedOut.complete(failure);
        });
        assertThat(timedOut.get(10, TimeUnit.SECONDS)).isInstanceOf(ClientException.class)
                .hasMessage("Client 'handed': no reply from 127.0.0.1:" + port + " within the request timeout of 2000 ms");
        await(() -> client.connections().size() == 1 && !before.isOpen(), "the client to connect again");
        assertThat(calls.get()).isEqualTo(1);
    }

    @Test
    void aReplyHandlerHearsAtOnceThatNoConnectionIsOpen() throws Exception {
        int port = freePort();
        SocketClient client = startClient(lineClient("nowhere", port)
                .reconnect(new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(5), 0)));
        await(() -> count("refused") >= 1, "a refused connect");
        AtomicReference<Throwable> heard = new AtomicReference<>();
        AtomicReference<String> on = new AtomicReference<>();
        client.request("hello", (reply, failure) -> {
            heard.set(failure);
            on.set(Thread.currentThread().getName());
        });
        assertThat(heard.get()).isInstanceOf(ClientException.class).hasMessageContaining("Client 'nowhere' has no open connection");
        assertThat(on.get()).isEqualTo(Thread.currentThread().getName());
    }

    @Test
    void aReplyThatDoesNotFrameClosesOnlyItsConnectionWithTheReasonNamed() throws Exception {
        int port = backend(new LineEcho());
        SocketClient client = startClient(ClientSettings.builder("strict").address("127.0.0.1", port).poolSize(2)
                .reconnect(QUICK).framing(Framing.line().withMaxFrameSize(64)));
        awaitOpen(client, 2);
        List<Connection> before = client.connections();
        CompletableFuture<String> refused = client.request("long", String.class);
        assertThatThrownBy(() -> refused.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(ClientException.class)
                .hasMessageContaining("Client 'strict': the connection to 127.0.0.1:" + port + " failed before the reply")
                .hasMessageContaining("a frame of 201 bytes, over its max-frame-size of 64 bytes");
        await(() -> before.stream().filter(Connection::isOpen).count() == 1, "only the connection that read a bad reply to close");
        await(() -> client.connections().size() == 2, "the client to connect again");
        assertThat(client.request("ok", String.class).get(5, TimeUnit.SECONDS)).isEqualTo("echo ok");
        assertThat(count("connected")).isEqualTo(3);
    }

    /**
     * A reply the client's own decoder refuses and asks to skip (one over a limit of the protocol's)
     * fails the request it answered, naming why, and nothing else: the connection goes on and serves
     * the next request. Before, only a refusal that closed the connection (and failed every request
     * it owed) was possible.
     */
    @Test
    void aReplyTheClientsDecoderRefusesAndSkipsFailsOnlyItsRequest() throws Exception {
        int port = backend(new LineEcho());
        SocketClient client = startClient(ClientSettings.builder("strict").address("127.0.0.1", port).poolSize(1)
                .reconnect(QUICK).framing(Framing.of(new ShortLines(64), FrameEncoder.AS_IS)));
        awaitOpen(client, 1);
        Connection connection = client.connections().get(0);
        CompletableFuture<String> refused = client.request("long\n", String.class);
        CompletableFuture<String> next = client.request("ok\n", String.class);
        assertThatThrownBy(() -> refused.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(ClientException.class)
                .hasMessage("Client 'strict': the reply from 127.0.0.1:" + port + " was refused and skipped (Client 'strict': a reply"
                        + " line of 201 bytes, over 64)")
                .cause().isInstanceOfSatisfying(FramingException.class, (refusal) -> assertThat(refusal.reason())
                        .isEqualTo(FramingException.Reason.TOO_LARGE));
        assertThat(next.get(5, TimeUnit.SECONDS)).as("the request after it, on the same connection").isEqualTo("echo ok");
        assertThat(connection.isOpen()).isTrue();
        assertThat(client.connections()).containsExactly(connection);
        assertThat(count("connected")).isEqualTo(1);
    }

    /** Lines (LF) of at most a length, a longer one refused and skipped. */
    private static final class ShortLines implements FrameDecoder {

        private final int most;

        ShortLines(int most) {
            this.most = most;
        }

        @Override
        public long frameLength(ByteBuffer in) throws FramingException {
            for (int i = in.position(); i < in.limit(); i++) {
                if (in.get(i) == '\n') {
                    int length = i + 1 - in.position();
                    if (length > this.most) {
                        throw FramingException.skipping(length, FramingException.Reason.TOO_LARGE, "a reply line of " + length
                                + " bytes, over " + this.most);
                    }
                    return length;
                }
            }
            return MORE;
        }

        @Override
        public int trailerLength(ByteBuffer frame) {
            return 1;
        }
    }

    @Test
    @BlocksWorkers("holds a handler call while the stop begins")
    void aGracefulStopClosesTheClientsConnectionsOnlyAfterTheAcceptedOnesFinished() throws Exception {
        LineEcho echo = new LineEcho();
        int port = backend(echo);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch holding = new CountDownLatch(1);
        ConnectionHandler front = (connection, data) -> {
            holding.countDown();
            held.await(10, TimeUnit.SECONDS);
            connection.write(data);
        };
        SocketServer proxy = this.fixture.startWithClients(List.of(ClientSettings.builder("later").address("127.0.0.1", port)
                .framing(Framing.line()).build()), this.connects, ServerFixture.tcp("front").handler(front).build());
        awaitOpen(proxy.client("later"), 1);
        Socket peer = this.fixture.connect(proxy, "front");
        peer.getOutputStream().write("busy\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(holding.await(5, TimeUnit.SECONDS)).as("the front's handler to hold its worker").isTrue();
        Thread stop = new Thread(() -> proxy.stop(Duration.ofSeconds(10)), "graceful-stop");
        stop.start();
        // While an accepted connection still owes its answer, the client's connection stays open.
        Thread.sleep(300);
        assertThat(echo.hangups.get()).as("FINs the backend saw while the front was busy").isZero();
        assertThat(proxy.client("later").connections()).hasSize(1);
        held.countDown();
        assertThat(new String(peer.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("busy\n");
        stop.join(15_000);
        await(() -> echo.hangups.get() == 1, "the backend to see the client's FIN after the front closed");
    }

    @Test
    void aGracefulStopWaitsForTheRepliesAClientsConnectionIsOwed() throws Exception {
        int port = backend(new LineEcho());
        SocketClient client = startClient(lineClient("owed", port));
        awaitOpen(client, 1);
        SocketServer server = this.fixture.lastStarted();
        CompletableFuture<String> slow = client.request("slow", String.class);
        server.stop(Duration.ofSeconds(5));
        assertThat(slow).as("a reply that came 300 ms after the stop began").isCompletedWithValue("echo slow");
    }

    @Test
    void aGracefulStopClosesAnAcceptedConnectionOnlyOnceTheRepliesToItsHandlersRequestsCame() throws Exception {
        AtomicReference<Connection> backendSide = new AtomicReference<>();
        CountDownLatch backendGot = new CountDownLatch(1);
        ConnectionHandler heldBackend = (connection, data) -> {
            backendSide.set(connection);
            backendGot.countDown();
        };
        SocketServer backend = this.fixture.start(1, ListenerSettings.tcp("backend").address(InetAddress.getLoopbackAddress())
                .framing(Framing.line()).handler(heldBackend).build());
        AtomicReference<SocketClient> client = new AtomicReference<>();
        AtomicReference<Connection> front = new AtomicReference<>();
        ConnectionHandler proxying = (connection, data) -> {
            front.set(connection);
            client.get().request(data, (reply, failure) -> connection.write((reply != null) ? reply
                    : ByteBuffer.wrap(("failed: " + failure).getBytes(StandardCharsets.UTF_8))));
        };
        SocketServer proxy = this.fixture.startWithClients(List.of(ClientSettings.builder("behind")
                .address("127.0.0.1", backend.listener("backend").portNumber()).framing(Framing.line()).build()), this.connects,
                ServerFixture.tcp("front").framing(Framing.line()).handler(proxying).build());
        client.set(proxy.client("behind"));
        awaitOpen(client.get(), 1);
        Socket peer = this.fixture.connect(proxy, "front");
        peer.getOutputStream().write("slow\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(backendGot.await(5, TimeUnit.SECONDS)).as("the request to reach the backend").isTrue();
        Thread stop = new Thread(() -> proxy.stop(Duration.ofSeconds(5)), "graceful-stop");
        stop.start();
        // The stop reached the accepted connection, whose handler returned long ago: only its request's reply is owed.
        await(() -> ((TcpConnection) front.get()).isDraining(), "the stop to drain the accepted connection");
        backendSide.get().send("answer slow");
        assertThat(new String(peer.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("answer slow\n");
        peer.close();
        stop.join(10_000);
        assertThat(stop.isAlive()).isFalse();
    }

    /**
     * A peer pipelines a request the handler passes on to a client, then bytes the framing refuses,
     * then one more request: the refusal's close waits for the reply owed (the handler writes it), reads
     * nothing after the refused bytes, and sends the FIN once the reply went out.
     */
    @Test
    void aConnectionWhoseBytesAreRefusedWritesTheRepliesItsHandlersRequestsAreOwedBeforeItCloses() throws Exception {
        HeldBackend backend = new HeldBackend();
        CountDownLatch refused = new CountDownLatch(1);
        AtomicReference<Connection> front = new AtomicReference<>();
        ConnectionHandler proxying = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                backend.forward(connection, data);
            }

            @Override
            public void onError(Connection connection, Throwable error) {
                front.set(connection);
                refused.countDown();
            }
        };
        Socket peer = backend.front(Framing.line().withMaxFrameSize(64), proxying);
        peer.getOutputStream().write(("slow\n" + "x".repeat(100) + "\n").getBytes(StandardCharsets.US_ASCII));
        assertThat(refused.await(5, TimeUnit.SECONDS)).as("the line over the frame size refused").isTrue();
        await(() -> backend.side.get() != null, "the request to reach the backend");
        await(() -> ((TcpConnection) front.get()).isClosing(), "the refusal's close to begin");
        peer.getOutputStream().write("after\n".getBytes(StandardCharsets.US_ASCII));
        // Time for a close that would not wait to finish, and for a read that would take what came after.
        Thread.sleep(100);
        backend.side.get().send("answer slow");
        assertThat(new String(peer.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)).as("what the peer read before the FIN")
                .isEqualTo("answer slow\n");
        assertThat(backend.got).as("requests that reached the backend").containsExactly("slow");
    }

    /** As above, the refusal a handler's own (a message that does not read), with a request after it in the same read. */
    @Test
    void whatCameInTheSameReadAfterAMessageTheHandlerRefusedIsNotHandedOn() throws Exception {
        HeldBackend backend = new HeldBackend();
        Queue<String> handled = new ConcurrentLinkedQueue<>();
        ConnectionHandler proxying = (connection, data) -> {
            String text = StandardCharsets.US_ASCII.decode(data.duplicate()).toString();
            handled.add(text);
            if (text.equals("BAD")) {
                throw new dev.sockstate.server.InvalidMessageException("not a request", new IllegalArgumentException(text));
            }
            backend.forward(connection, data);
        };
        Socket peer = backend.front(Framing.line(), proxying);
        peer.getOutputStream().write("slow\nBAD\nmore\n".getBytes(StandardCharsets.US_ASCII));
        await(() -> backend.side.get() != null, "the request to reach the backend");
        backend.side.get().send("answer slow");
        assertThat(new String(peer.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)).as("what the peer read before the FIN")
                .isEqualTo("answer slow\n");
        assertThat(handled).as("frames handed to the handler").containsExactly("slow", "BAD");
        assertThat(backend.got).as("requests that reached the backend").containsExactly("slow");
    }

    /** A line backend that answers nothing until told, and a front whose handler passes requests on to it through a client. */
    private final class HeldBackend {

        /** The backend's side of the client's connection, once a request came. */
        final AtomicReference<Connection> side = new AtomicReference<>();

        /** The requests the backend got. */
        final Queue<String> got = new ConcurrentLinkedQueue<>();

        private final AtomicReference<SocketClient> client = new AtomicReference<>();

        private final SocketServer server;

        HeldBackend() throws Exception {
            ConnectionHandler held = (connection, data) -> {
                this.side.set(connection);
                this.got.add(StandardCharsets.US_ASCII.decode(data).toString());
            };
            this.server = ClientTest.this.fixture.start(1, ListenerSettings.tcp("backend").address(InetAddress.getLoopbackAddress())
                    .framing(Framing.line()).handler(held).build());
        }

        /** @return a peer connected to a front listener with the framing and handler, whose client reaches the backend */
        Socket front(Framing framing, ConnectionHandler handler) throws Exception {
            SocketServer proxy = ClientTest.this.fixture.startWithClients(List.of(ClientSettings.builder("behind")
                    .address("127.0.0.1", this.server.listener("backend").portNumber()).framing(Framing.line()).build()),
                    ClientTest.this.connects, ServerFixture.tcp("front").framing(framing).handler(handler).build());
            this.client.set(proxy.client("behind"));
            awaitOpen(this.client.get(), 1);
            return ClientTest.this.fixture.connect(proxy, "front");
        }

        /** Passes a request on, its reply (or failure) written back to the connection it came on. */
        void forward(Connection connection, ByteBuffer request) {
            this.client.get().request(request, (reply, failure) -> connection.write((reply != null) ? reply
                    : ByteBuffer.wrap(("failed: " + failure).getBytes(StandardCharsets.UTF_8))));
        }
    }

    @Test
    void aRequestMadeOnAWorkerGoesOutOnAConnectionThatWorkersPortServes() throws Exception {
        int port = backend(new LineEcho());
        AtomicReference<SocketClient> client = new AtomicReference<>();
        Queue<String> mismatches = new ConcurrentLinkedQueue<>();
        AtomicInteger checked = new AtomicInteger();
        ConnectionHandler front = (connection, data) -> {
            NotificationPort here = Worker.currentPort();
            List<Connection> pool = client.get().connections();
            boolean servedHere = pool.stream().anyMatch((open) -> ((TcpConnection) open).port == here);
            for (int i = 0; i < 4; i++) {
                TcpConnection chosen = (TcpConnection) client.get().connection();
                if (servedHere && chosen.port != here) {
                    mismatches.add(chosen + " for a request on " + Thread.currentThread().getName());
                }
            }
            checked.incrementAndGet();
            connection.write(data);
        };
        SocketServer proxy = this.fixture.start(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)
                .withPortPerWorker(true)), List.of(ClientSettings.builder("near").address("127.0.0.1", port).poolSize(2)
                .framing(Framing.line()).build()), this.connects, ServerFixture.tcp("front").handler(front).build());
        client.set(proxy.client("near"));
        awaitOpen(client.get(), 2);
        for (int i = 0; i < 8; i++) {
            Socket peer = this.fixture.connect(proxy, "front");
            peer.getOutputStream().write('?');
            assertThat(peer.getInputStream().read()).isEqualTo('?');
        }
        assertThat(checked.get()).isEqualTo(8);
        assertThat(mismatches).isEmpty();
    }

    /**
     * The ports go to new sockets in turn, accepted ones among them: a pool connection connected again
     * after others were accepted found its worker's port taken by the other pool connection, every other
     * time, and the workers of the other port then handed each request over to it.
     */
    @Test
    void aPoolConnectionConnectedAgainKeepsThePoolSpreadOverTheWorkersPorts() throws Exception {
        Queue<Connection> backendSide = new ConcurrentLinkedQueue<>();
        ConnectionHandler echo = new ConnectionHandler() {
            @Override
            public void onOpen(Connection connection) {
                backendSide.add(connection);
            }

            @Override
            public void onData(Connection connection, ByteBuffer line) {
                connection.write(line);
            }
        };
        int port = backend(echo);
        SocketServer proxy = this.fixture.start(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)
                .withPortPerWorker(true)), List.of(lineClient("spread", port).poolSize(2).reconnect(QUICK).build()), this.connects,
                ServerFixture.tcp("front").handler(new LineEcho()).build());
        SocketClient client = proxy.client("spread");
        awaitOpen(client, 2);
        List<String> layouts = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
            // An accepted connection takes the next port; then a pool connection closes and is connected again.
            this.fixture.connect(proxy, "front");
            // (The backend's side of the connection the pool opened last may not have opened there yet.)
            await(() -> !backendSide.isEmpty(), "the backend to have a connection of the pool's open");
            List<Connection> before = client.connections();
            backendSide.poll().close();
            await(() -> client.connections().size() == 2 && !before.containsAll(client.connections())
                    && client.connections().stream().allMatch(Connection::isOpen), "the pool to be whole again");
            long ports = client.connections().stream().map((open) -> ((TcpConnection) open).port).distinct().count();
            layouts.add("round " + round + ": " + ports + " ports");
        }
        assertThat(layouts).allMatch((layout) -> layout.endsWith(": 2 ports"));
    }

    /**
     * A worker once counted its turns over every pool with one count: a handler that asks two clients in
     * step took the same slot of each pool every time, and left the other connection of each idle.
     */
    @Test
    void aWorkerThatAsksTwoClientsInStepTakesEveryConnectionOfEachPool() throws Exception {
        int port = backend(new LineEcho());
        AtomicReference<SocketServer> server = new AtomicReference<>();
        Set<Connection> takenOfA = ConcurrentHashMap.newKeySet();
        Set<Connection> takenOfB = ConcurrentHashMap.newKeySet();
        ConnectionHandler front = (connection, data) -> {
            data.position(data.limit());
            for (int i = 0; i < 64; i++) {
                takenOfA.add(server.get().client("a").connection());
                takenOfB.add(server.get().client("b").connection());
            }
            connection.write(new byte[] { '!' });
        };
        SocketServer proxy = this.fixture.start(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)),
                List.of(lineClient("a", port).poolSize(2).build(), lineClient("b", port).poolSize(2).build()), this.connects,
                ServerFixture.tcp("front").handler(front).build());
        server.set(proxy);
        awaitOpen(proxy.client("a"), 2);
        awaitOpen(proxy.client("b"), 2);
        Socket peer = this.fixture.connect(proxy, "front");
        peer.getOutputStream().write('?');
        assertThat(peer.getInputStream().read()).isEqualTo('!');
        assertThat(takenOfA).as("the connections of client a taken").hasSize(2);
        assertThat(takenOfB).as("the connections of client b taken").hasSize(2);
    }

    @Test
    void aConnectionOfItsOwnOpenedOnAWorkerIsServedByThatWorkersPort() throws Exception {
        int port = backend(new LineEcho());
        AtomicReference<SocketClient> client = new AtomicReference<>();
        Queue<String> elsewhere = new ConcurrentLinkedQueue<>();
        AtomicInteger opened = new AtomicInteger();
        ConnectionHandler front = (connection, data) -> {
            NotificationPort here = Worker.currentPort();
            data.position(data.limit());
            for (int i = 0; i < 4; i++) {
                client.get().open().whenComplete((own, failure) -> {
                    if (failure != null || ((TcpConnection) own).port != here) {
                        elsewhere.add((failure != null) ? failure.toString() : own + " served elsewhere");
                    }
                    if (own != null) {
                        own.close();
                    }
                    if (opened.incrementAndGet() == 4) {
                        connection.write(new byte[] { '!' });
                    }
                });
            }
        };
        SocketServer proxy = this.fixture.start(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)
                .withPortPerWorker(true)), List.of(lineClient("own", port).poolSize(0).build()), this.connects,
                ServerFixture.tcp("front").handler(front).build());
        client.set(proxy.client("own"));
        Socket peer = this.fixture.connect(proxy, "front");
        peer.getOutputStream().write('?');
        assertThat(peer.getInputStream().read()).isEqualTo('!');
        assertThat(elsewhere).isEmpty();
    }

    /**
     * A request made off the workers is handed over to its connection's worker, which owes it a reply
     * as it writes it: here while that worker, held in a handler, has not written its own requests yet,
     * which it then writes before it takes the one handed over. Each reply answers its own request.
     */
    @Test
    @BlocksWorkers("holds the worker between its own writes while another thread hands a request over")
    void aRequestHandedOverWhileTheWorkerWritesItsOwnIsOwedInTheOrderWritten() throws Exception {
        int port = backend(new LineEcho());
        AtomicReference<SocketClient> client = new AtomicReference<>();
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch handedOver = new CountDownLatch(1);
        Queue<CompletableFuture<String>> answers = new ConcurrentLinkedQueue<>();
        ConnectionHandler front = (connection, data) -> {
            data.position(data.limit());
            inHandler.countDown();
            try {
                handedOver.await(5, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            for (int i = 0; i < 3; i++) {
                answers.add(asked(client.get(), "worker " + i));
            }
        };
        SocketServer proxy = this.fixture.start(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)),
                List.of(lineClient("ordered", port).build()), this.connects, ServerFixture.tcp("front").handler(front).build());
        client.set(proxy.client("ordered"));
        awaitOpen(client.get(), 1);
        Socket peer = this.fixture.connect(proxy, "front");
        peer.getOutputStream().write('?');
        assertThat(inHandler.await(5, TimeUnit.SECONDS)).as("the worker in the front's handler").isTrue();
        CompletableFuture<String> handed = asked(client.get(), "handed");
        handedOver.countDown();
        assertThat(handed.get(5, TimeUnit.SECONDS)).isEqualTo("handed: echo handed");
        await(() -> answers.size() == 3, "the worker's requests");
        for (CompletableFuture<String> answer : answers) {
            assertThat(answer.get(5, TimeUnit.SECONDS)).matches("worker (\\d): echo worker \\1");
        }
    }

    /** A request handed over to a connection that ends before its worker took it fails: it is not left waiting. */
    @Test
    @BlocksWorkers("holds the client connection's worker while the request is handed over")
    void aRequestHandedOverToAConnectionThatEndsBeforeItsWorkerTookItFails() throws Exception {
        int port = backend(new LineEcho());
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ConnectionHandler front = (connection, data) -> {
            data.position(data.limit());
            inHandler.countDown();
            try {
                release.await(5, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        };
        SocketServer proxy = this.fixture.start(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)),
                List.of(lineClient("ending", port).reconnect(QUICK).build()), this.connects, ServerFixture.tcp("front").handler(front).build());
        SocketClient client = proxy.client("ending");
        awaitOpen(client, 1);
        Connection pooled = client.connection();
        Socket peer = this.fixture.connect(proxy, "front");
        peer.getOutputStream().write('?');
        assertThat(inHandler.await(5, TimeUnit.SECONDS)).as("the worker in the front's handler").isTrue();
        CompletableFuture<String> handed = client.request("handed", String.class);
        pooled.close();
        release.countDown();
        assertThatThrownBy(() -> handed.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(ClientException.class)
                .hasMessageContaining("Client 'ending'").hasMessageContaining("closed before");
        await(() -> client.connections().size() == 1 && client.connections().get(0) != pooled, "the client to connect again");
        assertThat(client.request("again", String.class).get(5, TimeUnit.SECONDS)).isEqualTo("echo again");
    }

    /**
     * A reply that comes on another worker than the one of the connection whose handler asked is
     * handed over to that connection's worker: its reply handler runs after the handler call that
     * made the request returned, never beside it, here while that call waits until the reply was
     * counted on the other worker.
     */
    @Test
    @BlocksWorkers("holds a worker in a call while the reply comes on another")
    void aReplyToAConnectionOfAnotherWorkersIsHandedOnAsThatConnectionsCallsAreNotBesideThem() throws Exception {
        int port = backend(new LineEcho());
        AtomicReference<SocketClient> client = new AtomicReference<>();
        AtomicReference<Thread> calling = new AtomicReference<>();
        AtomicReference<String> callThread = new AtomicReference<>();
        CompletableFuture<String> handedOn = new CompletableFuture<>();
        ConnectionHandler front = (connection, data) -> {
            data.position(data.limit());
            if (Worker.currentPort() == ((TcpConnection) client.get().connection()).port) {
                connection.write("same port\n".getBytes(StandardCharsets.UTF_8));
                return;
            }
            calling.set(Thread.currentThread());
            int before = this.connects.requests.size();
            client.get().request("asked", (reply, failure) -> {
                handedOn.complete(StandardCharsets.UTF_8.decode(reply) + (reply.isDirect() ? " in place" : " copied")
                        + ((calling.get() == null) ? " after the call" : " beside the call") + " on " + Thread.currentThread().getName());
                connection.write("answered\n".getBytes(StandardCharsets.UTF_8));
            });
            try {
                await(() -> this.connects.requests.size() > before, "the reply counted on the other worker");
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            callThread.set(Thread.currentThread().getName());
            calling.set(null);
        };
        SocketServer proxy = this.fixture.start(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)
                .withPortPerWorker(true)), List.of(lineClient("elsewhere", port).poolSize(1).build()), this.connects,
                ServerFixture.tcp("front").framing(Framing.line()).handler(front).build());
        client.set(proxy.client("elsewhere"));
        awaitOpen(client.get(), 1);
        String answer = "same port";
        for (int i = 0; i < 4 && answer.equals("same port"); i++) {
            Socket peer = this.fixture.connect(proxy, "front");
            peer.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
            answer = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8)).readLine();
        }
        assertThat(handedOn.get(5, TimeUnit.SECONDS)).isEqualTo("echo asked copied after the call on " + callThread.get());
        assertThat(answer).isEqualTo("answered");
    }

    /**
     * A reply that comes on another worker once the connection that asked has ended is handed on there,
     * but not beside that connection's last call: here its onClose, held until the reply was counted.
     */
    @Test
    @BlocksWorkers("holds onClose until the reply came")
    void aReplyThatComesAfterItsConnectionEndedIsHandedOnAfterItsLastCall() throws Exception {
        AtomicReference<Connection> answering = new AtomicReference<>();
        int port = backend((connection, data) -> {
            data.position(data.limit());
            answering.set(connection);
        });
        AtomicReference<SocketClient> client = new AtomicReference<>();
        CountDownLatch closing = new CountDownLatch(1);
        CountDownLatch counted = new CountDownLatch(1);
        AtomicReference<Boolean> inClose = new AtomicReference<>(false);
        CompletableFuture<String> handedOn = new CompletableFuture<>();
        ConnectionHandler front = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                data.position(data.limit());
                if (Worker.currentPort() == ((TcpConnection) client.get().connection()).port) {
                    connection.write("same port\n".getBytes(StandardCharsets.UTF_8));
                    return;
                }
                client.get().request("later", (reply, failure) -> handedOn.complete(StandardCharsets.UTF_8.decode(reply)
                        + (inClose.get() ? " beside onClose" : " after onClose")));
                connection.write("asked\n".getBytes(StandardCharsets.UTF_8));
            }

            @Override
            public void onClose(Connection connection) {
                if (answering.get() == null) {
                    return;
                }
                inClose.set(true);
                closing.countDown();
                try {
                    counted.await(5, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                inClose.set(false);
            }
        };
        SocketServer proxy = this.fixture.start(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)
                .withPortPerWorker(true)), List.of(lineClient("late", port).poolSize(1).build()), this.connects,
                ServerFixture.tcp("front").framing(Framing.line()).handler(front).build());
        client.set(proxy.client("late"));
        awaitOpen(client.get(), 1);
        Socket asking = null;
        for (int i = 0; i < 4 && asking == null; i++) {
            Socket peer = this.fixture.connect(proxy, "front");
            peer.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
            if (new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8)).readLine().equals("asked")) {
                asking = peer;
            }
        }
        assertThat(asking).as("a front connection on the other worker").isNotNull();
        await(() -> answering.get() != null, "the backend to hold the request");
        asking.close();
        assertThat(closing.await(5, TimeUnit.SECONDS)).as("the front connection's onClose").isTrue();
        int before = this.connects.requests.size();
        answering.get().send("late reply");
        await(() -> this.connects.requests.size() > before, "the reply counted on the other worker");
        counted.countDown();
        assertThat(handedOn.get(5, TimeUnit.SECONDS)).isEqualTo("late reply after onClose");
    }

    /**
     * The lock of a connection's last calls is its own: two connections of two workers that ask for each
     * other's attributes (made the first time under the extras' monitor) from their onClose, closing at
     * once, both finish. With the extras' monitor as that lock, each held its own and waited for the other's.
     */
    @Test
    @BlocksWorkers("holds each onClose until both connections are closing")
    void twoConnectionsThatAskForEachOthersAttributesFromOnCloseBothClose() throws Exception {
        int port = backend(new LineEcho());
        AtomicReference<SocketClient> client = new AtomicReference<>();
        Queue<Connection> asked = new ConcurrentLinkedQueue<>();
        Queue<NotificationPort> ports = new ConcurrentLinkedQueue<>();
        CountDownLatch bothClosing = new CountDownLatch(2);
        CountDownLatch bothClosed = new CountDownLatch(2);
        ConnectionHandler front = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                data.position(data.limit());
                NotificationPort here = Worker.currentPort();
                if (ports.contains(here)) {
                    connection.write("taken\n".getBytes(StandardCharsets.UTF_8));
                    return;
                }
                ports.add(here);
                asked.add(connection);
                // A request awaited by the connection: its seldom needed state is made, its attributes are not.
                client.get().request("made", (reply, failure) -> connection.write("asked\n".getBytes(StandardCharsets.UTF_8)));
            }

            @Override
            public void onClose(Connection connection) {
                if (!asked.contains(connection)) {
                    return;
                }
                bothClosing.countDown();
                try {
                    bothClosing.await(5, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                for (Connection other : asked) {
                    if (other != connection) {
                        other.attributes().put("closed beside", connection.id());
                    }
                }
                bothClosed.countDown();
            }
        };
        SocketServer proxy = this.fixture.start(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)
                .withPortPerWorker(true)), List.of(lineClient("attributes", port).poolSize(2).build()), this.connects,
                ServerFixture.tcp("front").framing(Framing.line()).handler(front).build());
        client.set(proxy.client("attributes"));
        awaitOpen(client.get(), 2);
        List<Socket> peers = new ArrayList<>();
        for (int i = 0; i < 6 && peers.size() < 2; i++) {
            Socket peer = this.fixture.connect(proxy, "front");
            peer.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
            if (new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8)).readLine().equals("asked")) {
                peers.add(peer);
            }
        }
        assertThat(peers).as("a front connection on each worker").hasSize(2);
        for (Socket peer : peers) {
            peer.close();
        }
        assertThat(bothClosed.await(10, TimeUnit.SECONDS)).as("both onClose calls returned").isTrue();
    }

    /** @return the reply to a line, as "line: reply" */
    private static CompletableFuture<String> asked(SocketClient client, String line) {
        CompletableFuture<String> answer = new CompletableFuture<>();
        client.request(line, (reply, failure) -> {
            if (failure != null) {
                answer.completeExceptionally(failure);
            }
            else {
                answer.complete(line + ": " + StandardCharsets.UTF_8.decode(reply));
            }
        });
        return answer;
    }

    /** @return the port of a backend listener with that handler, line-framed, started */
    private int backend(ConnectionHandler handler) {
        SocketServer backend = this.fixture.start(1, ListenerSettings.tcp("backend").address(InetAddress.getLoopbackAddress())
                .framing(Framing.line()).handler(handler).build());
        return backend.listener("backend").portNumber();
    }

    /** @return a line-framed client of the loopback port */
    private static ClientSettings.Builder lineClient(String name, int port) {
        return ClientSettings.builder(name).address("127.0.0.1", port).framing(Framing.line());
    }

    private SocketClient startClient(ClientSettings.Builder client) {
        SocketServer server = this.fixture.startWithClients(List.of(client.build()), this.connects);
        return server.client(client.build().name());
    }

    private static void awaitOpen(SocketClient client, int connections) throws InterruptedException {
        await(() -> client.connections().size() == connections, connections + " open connections of " + client.name());
    }

    private long count(String outcome) {
        return this.connects.outcomes.stream().filter(outcome::equals).count();
    }

    /** @return a loopback port a connect is refused on */
    static int freePort() throws IOException {
        return RefusingPorts.unused();
    }

    /** Connects to a socket that never accepts until the system drops further connects (its backlog full). */
    private static List<Socket> fillBacklog(ServerSocket full) throws IOException {
        List<Socket> sockets = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            Socket socket = new Socket();
            try {
                socket.connect(full.getLocalSocketAddress(), 200);
                sockets.add(socket);
            }
            catch (IOException ex) {
                socket.close();
                return sockets;
            }
        }
        throw new AssertionError("The backlog of " + full + " did not fill within 64 connects");
    }

    /** Answers each line with "echo " and the line; holds the lines that begin with "hold", and answers "long" with too long a line. */
    static final class LineEcho implements ConnectionHandler {

        final Queue<String> held = new ConcurrentLinkedQueue<>();

        final AtomicInteger hangups = new AtomicInteger();

        @Override
        public void onHangup(Connection connection) {
            this.hangups.incrementAndGet();
            connection.close();
        }

        @Override
        public void onData(Connection connection, ByteBuffer data) {
            String line = StandardCharsets.UTF_8.decode(data).toString();
            if (line.startsWith("hold")) {
                this.held.add(line);
            }
            else if (line.equals("slow")) {
                CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS).execute(() -> connection.send("echo slow"));
            }
            else if (line.equals("long")) {
                connection.send("x".repeat(200));
            }
            else {
                connection.send("echo " + line);
            }
        }
    }

    /** Records each client connect's outcome. */
    static final class Connects implements ServerObserver {

        final Queue<String> outcomes = new ConcurrentLinkedQueue<>();

        /** Runs on the thread that counts an outcome, as it counts it. */
        volatile Consumer<String> counting = (outcome) -> { };

        /** The outcomes of the requests ended, as counted. */
        final Queue<String> requests = new ConcurrentLinkedQueue<>();

        /** The TLS handshakes' outcomes: "ok", or the reason of a failure. */
        final Queue<String> handshakes = new ConcurrentLinkedQueue<>();

        @Override
        public ListenerObserver client(String client, ActiveCounts active) {
            return new ListenerObserver() {
                @Override
                public void connect(String outcome) {
                    Connects.this.counting.accept(outcome);
                    Connects.this.outcomes.add(outcome);
                }

                @Override
                public void request(String outcome, long nanos) {
                    Connects.this.requests.add(outcome);
                }

                @Override
                public void handshake(boolean success, String reason, long nanos) {
                    Connects.this.handshakes.add(success ? "ok" : String.valueOf(reason));
                }
            };
        }

        @Override
        public ListenerObserver listener(String listener, Protocol protocol, ActiveCounts active) {
            return ListenerObserver.NONE;
        }
    }
}
