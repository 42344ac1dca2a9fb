package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import dev.sockstate.server.observer.ServerObserver;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A graceful stop under load: every byte the server took is answered before the connection closes,
 * connections close as soon as they owe nothing, and only a peer that stays busy past the timeout is
 * aborted. Whether the server took a request and dropped its reply is judged exactly: the bytes each
 * connection's handler received against the bytes its client got back.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GracefulStopTest {

    private static final int CLIENTS = 32;

    private static final int MESSAGE = 2000;

    /** Bytes each connection's handler received, by the client's port number. */
    private final Map<Integer, AtomicLong> received = new ConcurrentHashMap<>();

    /** The server's own reads and sends by socket handle: bytes read before its FIN, bytes sent, whether the FIN went out. */
    private final Map<Long, long[]> socketTraffic = new ConcurrentHashMap<>();

    /** Sockets the server closed owing bytes it had read before its FIN: what each read and what it sent. */
    private final java.util.Queue<String> closedOwing = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /**
     * The backend the tests serve on, its socket calls counted: at each close, the bytes the server
     * read before it sent its FIN must all have been sent back (every request read is answered;
     * what a close that waits for the peer's FIN reads after its own was sent after the stop reached the connection).
     */
    private final dev.sockstate.port.Backend counted = SocketCallWatch.watched(ServerFixture.backend(), new SocketCallWatch.Watcher() {

        @Override
        public void returned(String method, Object result, Throwable thrown) {
        }

        @Override
        public void returned(String method, Object[] arguments, Object result, Throwable thrown) {
            if (arguments == null || arguments.length == 0 || !(arguments[0] instanceof Long handle)) {
                return;
            }
            int bytes = (result instanceof Integer count) ? count : 0;
            switch (method) {
                case "recv" -> {
                    long[] traffic = GracefulStopTest.this.socketTraffic.computeIfAbsent(handle, (key) -> new long[3]);
                    if (bytes > 0 && traffic[2] == 0) {
                        traffic[0] += bytes;
                    }
                }
                case "send" -> GracefulStopTest.this.socketTraffic.computeIfAbsent(handle, (key) -> new long[3])[1] += Math.max(0, bytes);
                case "shutdown" -> GracefulStopTest.this.socketTraffic.computeIfAbsent(handle, (key) -> new long[3])[2] = 1;
                case "close" -> {
                    long[] traffic = GracefulStopTest.this.socketTraffic.remove(handle);
                    if (traffic != null && traffic[0] > traffic[1]) {
                        GracefulStopTest.this.closedOwing.add("socket " + handle + " read " + traffic[0] + " and sent " + traffic[1]);
                    }
                }
                default -> {
                }
            }
        }
    });

    private final ExecutorService threads = Executors.newCachedThreadPool();

    private final ExecutorService handlerExecutor = Executors.newFixedThreadPool(2);

    private SocketServer server;

    @AfterEach
    void stop() {
        if (this.server != null) {
            this.server.stop(Duration.ofSeconds(1));
        }
        this.threads.shutdownNow();
        this.handlerExecutor.shutdownNow();
    }

    @Test
    void aStopUnderClosedLoopLoadAnswersEveryRequestItTookAndReturnsOnceTheLastConnectionIsDone() throws Exception {
        assertEveryRequestTakenIsAnswered(start(ServerFixture.tcp("echo")));
    }

    @Test
    void aStopUnderLoadWithTheHandlersOnAnExecutorAnswersEveryRequestItTook() throws Exception {
        assertEveryRequestTakenIsAnswered(start(ServerFixture.tcp("echo").handlerExecutor(this.handlerExecutor)));
    }

    @Test
    void onePeerThatNeverReadsIsTheOnlyConnectionAbortedAndTheStopReturnsByTheTimeout() throws Exception {
        int port = start(ServerFixture.tcp("echo").maxPendingWriteBytes(64 * 1024));
        List<Future<Client>> clients = startClients(port, CLIENTS - 1);
        SocketChannel hog = SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        AtomicReference<String> hogEnd = new AtomicReference<>();
        AtomicLong hogSent = new AtomicLong();
        Future<Long> hogging = this.threads.submit(() -> {
            ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            try {
                while (System.nanoTime() < until) {
                    chunk.clear();
                    hogSent.addAndGet(hog.write(chunk));
                }
                hogEnd.set("it was still sending after 20 s (" + hogSent.get() + " bytes)");
            }
            catch (IOException ex) {
                hogEnd.set("reset after " + hogSent.get() + " bytes: " + ex);
            }
            return System.nanoTime();
        });
        // The peer's answers fill the buffers and its connection pauses for them. (The kernel may still
        // grow its buffers and take them after the stop began: the drain then answers what came, sends
        // the FIN and waits for the peer's, dropping what the peer sends after, as for any peer that sends on through
        // a stop; the wait's end aborts it. Either way the peer is reset by the time the stop returns.)
        awaitStalled(hogSent);
        long stopStart = System.nanoTime();
        this.server.stop(Duration.ofSeconds(2));
        long stopped = System.nanoTime();
        assertThat(Duration.ofNanos(stopped - stopStart)).as("the stop returns by its timeout").isLessThan(Duration.ofSeconds(4));
        for (Future<Client> future : clients) {
            Client client = future.get(15, TimeUnit.SECONDS);
            assertThat(client.received).as("bytes answered to %s", client.port).isEqualTo(this.received.get(client.port).get());
            assertThat(Duration.ofNanos(client.ended - stopStart)).as("a connection that owes nothing closes at once")
                    .isLessThan(Duration.ofMillis(1500));
        }
        long hogEnded = hogging.get(25, TimeUnit.SECONDS);
        assertThat(hogEnd.get()).as("how the peer that never reads ended").startsWith("reset");
        assertThat(Duration.ofNanos(hogEnded - stopped)).as("the peer that never reads is reset as the stop returns (%s)", hogEnd.get())
                .isLessThan(Duration.ofSeconds(1)).isGreaterThan(Duration.ofMillis(-500));
        hog.close();
    }

    /** Waits until a count stood still for half a second: the peer's writes block. */
    private static void awaitStalled(AtomicLong count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        long last = -1;
        long since = System.nanoTime();
        while (System.nanoTime() < deadline) {
            long now = count.get();
            if (now != last) {
                last = now;
                since = System.nanoTime();
            }
            else if (now > 0 && System.nanoTime() - since > TimeUnit.MILLISECONDS.toNanos(500)) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the peer that never reads still sent after 20 s (" + last + " bytes)");
    }

    @Test
    @BlocksWorkers("holds a handler call while the stop begins")
    void aConnectionItsHandlerClosedDuringTheStopIsNotDrainedFurther() throws Exception {
        java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        ConnectionHandler closer = (connection, data) -> {
            String text = java.nio.charset.StandardCharsets.US_ASCII.decode(data).toString();
            seen.add(text);
            if (text.startsWith("first")) {
                holding.countDown();
                release.await(10, TimeUnit.SECONDS);
                connection.write(java.nio.charset.StandardCharsets.US_ASCII.encode("bye"));
                connection.close();
            }
        };
        this.server = new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)),
                List.of(ServerFixture.tcp("echo").handler(closer).build()), ServerObserver.NONE);
        this.server.start();
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), this.server.listener("echo").portNumber())) {
            client.getOutputStream().write("first".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
            client.getOutputStream().write("second".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            Future<?> stopping = this.threads.submit(() -> this.server.stop(Duration.ofSeconds(5)));
            Thread.sleep(200);
            release.countDown();
            stopping.get(10, TimeUnit.SECONDS);
        }
        assertThat(seen).as("what reached the handler: nothing after its close").containsExactly("first");
    }

    @Test
    @BlocksWorkers("holds a handler call so that the stop drains")
    void whileAStopDrainsTheListenersAndGroupsCanBeAskedFor() throws Exception {
        java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        ConnectionHandler held = (connection, data) -> {
            holding.countDown();
            release.await(10, TimeUnit.SECONDS);
            connection.write(data);
        };
        this.server = new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)),
                List.of(ServerFixture.tcp("echo").handler(held).build()), ServerObserver.NONE);
        this.server.start();
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), this.server.listener("echo").portNumber())) {
            client.getOutputStream().write('x');
            assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
            Future<?> stopping = this.threads.submit(() -> this.server.stop(Duration.ofSeconds(8)));
            ServerFixture.await(() -> !this.server.isRunning(), "the stop began");
            // What an actuator endpoint or a health indicator asks while the stop drains.
            Future<Integer> asked = this.threads.submit(() -> this.server.listeners().size() + this.server.workerGroups().size());
            assertThat(asked.get(2, TimeUnit.SECONDS)).as("answered during the drain").isGreaterThanOrEqualTo(0);
            assertThat(stopping.isDone()).as("the stop still drains").isFalse();
            release.countDown();
            assertThat(client.getInputStream().read()).as("the held request answered").isEqualTo('x');
            stopping.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    @BlocksWorkers("holds a handler call so that the stop drains")
    void aConnectionIsOpenForItsHandlerWhileAStopDrainsIt() throws Exception {
        java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        List<Boolean> open = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicReference<TcpConnection> handled = new java.util.concurrent.atomic.AtomicReference<>();
        ConnectionHandler replier = (connection, data) -> {
            handled.set((TcpConnection) connection);
            holding.countDown();
            release.await(10, TimeUnit.SECONDS);
            // An asynchronous replier checks before it answers.
            open.add(connection.isOpen());
            if (connection.isOpen()) {
                connection.write(data);
            }
        };
        this.server = new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)),
                List.of(ServerFixture.tcp("echo").handler(replier).build()), ServerObserver.NONE);
        this.server.start();
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), this.server.listener("echo").portNumber())) {
            client.setSoTimeout(10_000);
            client.getOutputStream().write('x');
            assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
            Future<?> stopping = this.threads.submit(() -> this.server.stop(Duration.ofSeconds(5)));
            ServerFixture.await(() -> handled.get().isDraining(), "the stop asked the connection to drain while its handler runs");
            release.countDown();
            assertThat(client.getInputStream().read()).as("the answer").isEqualTo('x');
            stopping.get(10, TimeUnit.SECONDS);
        }
        assertThat(open).as("isOpen() as the handler saw it during the drain").containsExactly(true);
    }

    @Test
    @BlocksWorkers("slows each open so that peers keep connecting through the stop")
    void aStopWhilePeersKeepConnectingEndsByItsTimeout() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean stopConnecting = new java.util.concurrent.atomic.AtomicBoolean();
        ConnectionHandler slowOpen = new ConnectionHandler() {

            @Override
            public void onOpen(Connection connection) throws Exception {
                // Each open takes a while, so that peers connect faster than the listener accepts.
                Thread.sleep(2);
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
            }
        };
        this.server = new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)),
                List.of(ServerFixture.tcp("echo").backlog(4096).handler(slowOpen).build()), ServerObserver.NONE);
        this.server.start();
        int port = this.server.listener("echo").portNumber();
        List<Future<Integer>> connecting = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            connecting.add(this.threads.submit(() -> {
                int made = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!stopConnecting.get() && System.nanoTime() < deadline && made < 20_000) {
                    try (Socket client = new Socket()) {
                        client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
                        made++;
                    }
                    catch (IOException ex) {
                        // refused or reset once the listener closes
                    }
                }
                return made;
            }));
        }
        Thread.sleep(300);
        long stopStart = System.nanoTime();
        this.server.stop(Duration.ofMillis(500));
        long took = System.nanoTime() - stopStart;
        stopConnecting.set(true);
        for (Future<Integer> client : connecting) {
            client.get(15, TimeUnit.SECONDS);
        }
        assertThat(Duration.ofNanos(took)).as("the stop, with peers connecting all along").isLessThan(Duration.ofSeconds(3));
    }

    @Test
    @BlocksWorkers("a handler works a while on each request during the drain")
    void aPeerThatKeepsSendingThroughTheDrainIsReadForATurnThenLingeredAndTheStopEndsLongBeforeItsTimeout() throws Exception {
        // A port per worker: the drain's next turn is its own worker's, never folded into the one before.
        AtomicLong consumed = new AtomicLong();
        ConnectionHandler sink = (connection, data) -> {
            consumed.addAndGet(data.remaining());
            data.position(data.limit());
            // A consumer slower than the peer: the socket always has more when a read returns.
            Thread.sleep(1);
        };
        this.server = new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)
                .withPortPerWorker(true)),
                List.of(ServerFixture.tcp("echo").handler(sink).build()), ServerObserver.NONE);
        this.server.start();
        SocketChannel streamer = SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                this.server.listener("echo").portNumber()));
        Future<?> streaming = this.threads.submit(() -> {
            ByteBuffer chunk = ByteBuffer.allocate(16 * 1024);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            long sent = 0;
            try {
                // Bounded in time and in bytes; it never reads, never closes, only sends.
                while (System.nanoTime() < deadline && sent < 4L << 30) {
                    chunk.clear();
                    sent += streamer.write(chunk);
                }
            }
            catch (IOException ex) {
                // aborted once the wait for its FIN gave up on it
            }
            return null;
        });
        ServerFixture.await(() -> consumed.get() > 1 << 20, "the peer is streaming");
        long stopStart = System.nanoTime();
        this.server.stop(Duration.ofSeconds(8));
        assertThat(Duration.ofNanos(System.nanoTime() - stopStart)).as("the stop, with a peer that keeps sending")
                .isLessThan(Duration.ofSeconds(4));
        streaming.get(20, TimeUnit.SECONDS);
        streamer.close();
    }

    @Test
    @BlocksWorkers("holds the worker while connections queue in the kernel")
    void aStopServesEveryConnectionTheKernelHadCompletedBeyondOneAcceptTurn() throws Exception {
        java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(2);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        ConnectionHandler holder = (connection, data) -> {
            if (data.get(data.position()) == 'h') {
                holding.countDown();
                release.await(20, TimeUnit.SECONDS);
            }
            connection.write(data);
        };
        this.server = new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)),
                List.of(ServerFixture.tcp("echo").backlog(2048).handler(holder).build()), ServerObserver.NONE);
        this.server.start();
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), this.server.listener("echo").portNumber());
        List<Socket> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                Socket busy = new Socket();
                busy.connect(address, 5000);
                clients.add(busy);
                busy.getOutputStream().write('h');
                // One at a time: the first holds a worker, the second the other.
                long stillFree = 1 - i;
                ServerFixture.await(() -> holding.getCount() == stillFree, "a worker held");
            }
            assertThat(holding.await(10, TimeUnit.SECONDS)).as("both workers held in a handler").isTrue();
            // Both workers busy: these complete in the kernel and wait in the backlog, more than one accept turn takes.
            List<Socket> waiting = new ArrayList<>();
            for (int i = 0; i < TcpAcceptor.ACCEPTS_PER_NOTIFICATION + 150; i++) {
                Socket client = new Socket();
                client.connect(address, 5000);
                client.setSoTimeout(10_000);
                waiting.add(client);
                clients.add(client);
            }
            Future<?> stopping = this.threads.submit(() -> this.server.stop(Duration.ofSeconds(10)));
            ServerFixture.await(() -> !this.server.isRunning(), "the stop began");
            release.countDown();
            int resets = 0;
            for (Socket client : waiting) {
                try {
                    if (client.getInputStream().read() != -1) {
                        resets++;
                    }
                }
                catch (IOException ex) {
                    resets++;
                }
            }
            assertThat(resets).as("connections the kernel had completed that were reset instead of served and closed").isZero();
            stopping.get(20, TimeUnit.SECONDS);
        }
        finally {
            release.countDown();
            for (Socket client : clients) {
                client.close();
            }
        }
    }

    @Test
    @BlocksWorkers("connects a peer from the worker, once the drain found no connection waiting")
    void aConnectionTheKernelCompletesAfterTheDrainFoundNoneWaitingIsServedNotReset() throws Exception {
        AtomicBoolean stopping = new AtomicBoolean();
        AtomicReference<InetSocketAddress> address = new AtomicReference<>();
        AtomicReference<Object> late = new AtomicReference<>();
        Backend backend = SocketCallWatch.watched(ServerFixture.backend(), new SocketCallWatch.Watcher() {

            @Override
            public void returned(String method, Object result, Throwable thrown) {
            }

            @Override
            public void returned(String method, Object[] arguments, Object result, Throwable thrown) {
                if (method.equals("accept") && stopping.get() && Long.valueOf(NativeSockets.NO_SOCKET).equals(result)
                        && late.compareAndSet(null, "connecting")) {
                    Socket client = new Socket();
                    try {
                        client.connect(address.get(), 5000);
                        late.set(client);
                    }
                    catch (IOException ex) {
                        late.set(ex);
                    }
                }
            }
        });
        ConnectionHandler echo = Connection::write;
        this.server = new SocketServer(backend, List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)),
                List.of(ServerFixture.tcp("echo").handler(echo).build()), ServerObserver.NONE);
        this.server.start();
        address.set(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.server.listener("echo").portNumber()));
        stopping.set(true);
        this.server.stop(Duration.ofSeconds(5));
        assertThat(late.get()).as("a peer connected once the drain found the listener's queue empty").isInstanceOf(Socket.class);
        try (Socket client = (Socket) late.get()) {
            client.setSoTimeout(5000);
            assertThat(client.getInputStream().read()).as("what the peer reads: a clean end, not a reset").isEqualTo(-1);
        }
    }

    private void assertEveryRequestTakenIsAnswered(int port) throws Exception {
        List<Future<Client>> clients = startClients(port, CLIENTS);
        Thread.sleep(1000);
        long stopStart = System.nanoTime();
        this.server.stop(Duration.ofSeconds(5));
        assertThat(Duration.ofNanos(System.nanoTime() - stopStart)).as("the stop returns once the last connection is done")
                .isLessThan(Duration.ofSeconds(3));
        long messages = 0;
        for (Future<Client> future : clients) {
            Client client = future.get(15, TimeUnit.SECONDS);
            AtomicLong taken = this.received.get(client.port);
            assertThat(taken).as("connection from %s reached the handler", client.port).isNotNull();
            assertThat(client.received).as("bytes answered to %s of those its handler took", client.port).isEqualTo(taken.get());
            messages += client.received / MESSAGE;
        }
        assertThat(messages).as("round trips before the stop").isGreaterThan(CLIENTS);
        assertThat(this.closedOwing).as("sockets the server closed owing what it read before its FIN").isEmpty();
    }

    private int start(ListenerSettings.Builder listener) {
        ConnectionHandler echo = new ConnectionHandler() {

            @Override
            public void onOpen(Connection connection) {
                connection.attach(GracefulStopTest.this.received.computeIfAbsent(((InetSocketAddress) connection.remoteAddress()).getPort(),
                        (key) -> new AtomicLong()));
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                ((AtomicLong) connection.attachment()).addAndGet(data.remaining());
                connection.write(data);
            }
        };
        this.server = new SocketServer(this.counted, List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)),
                List.of(listener.handler(echo).build()), ServerObserver.NONE);
        this.server.start();
        return this.server.listener("echo").portNumber();
    }

    private List<Future<Client>> startClients(int port, int count) {
        List<Future<Client>> clients = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            clients.add(this.threads.submit(() -> closedLoop(port)));
        }
        return clients;
    }

    /** Sends a message, reads its whole echo, and again, until the server closes the connection. */
    private static Client closedLoop(int port) throws IOException {
        try (SocketChannel channel = SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))) {
            Socket socket = channel.socket();
            socket.setTcpNoDelay(true);
            Client client = new Client(socket.getLocalPort());
            ByteBuffer message = ByteBuffer.allocate(MESSAGE);
            ByteBuffer echo = ByteBuffer.allocate(MESSAGE);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            try {
                while (System.nanoTime() < deadline) {
                    message.clear();
                    while (message.hasRemaining()) {
                        channel.write(message);
                    }
                    echo.clear();
                    while (echo.hasRemaining()) {
                        int read = channel.read(echo);
                        if (read < 0) {
                            client.received += echo.position();
                            client.ended = System.nanoTime();
                            return client;
                        }
                    }
                    client.received += MESSAGE;
                }
            }
            catch (IOException ex) {
                client.received += echo.position();
            }
            client.ended = System.nanoTime();
            return client;
        }
    }

    /** What one client saw. */
    static final class Client {

        final int port;

        long received;

        long ended;

        Client(int port) {
            this.port = port;
        }
    }
}
