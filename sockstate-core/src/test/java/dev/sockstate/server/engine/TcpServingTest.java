package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.SocketOptions;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.params.ParameterizedTest;

/** TCP listeners on a real backend and loopback sockets. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpServingTest {

    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    @Test
    void manyConcurrentClientsGetRandomPayloadsUpToOneMebibyteEchoedIntactEvenWhenOneReadsSlowly() throws Exception {
        EchoHandler handler = new EchoHandler();
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("echo").maxPendingWriteBytes(256 * 1024)
                .handler(handler).build());
        int clients = 12;
        ExecutorService threads = Executors.newFixedThreadPool(clients * 2);
        List<Future<Boolean>> results = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            boolean slow = c == 0;
            Random random = new Random(c);
            byte[] payload = new byte[(c == 0) ? 1024 * 1024 : 1 + random.nextInt(1024 * 1024)];
            random.nextBytes(payload);
            Socket client = this.fixture.connect(server, "echo");
            Future<?> writer = threads.submit(() -> {
                OutputStream out = client.getOutputStream();
                for (int offset = 0; offset < payload.length; offset += 8192) {
                    out.write(payload, offset, Math.min(8192, payload.length - offset));
                }
                out.flush();
                return null;
            });
            results.add(threads.submit(() -> {
                InputStream in = client.getInputStream();
                byte[] echoed = new byte[payload.length];
                int read = 0;
                while (read < payload.length) {
                    int n = in.read(echoed, read, Math.min(slow ? 4096 : 65536, payload.length - read));
                    if (n < 0) {
                        break;
                    }
                    read += n;
                    if (slow) {
                        Thread.sleep(1);
                    }
                }
                writer.get();
                return Arrays.equals(payload, echoed);
            }));
        }
        for (Future<Boolean> result : results) {
            assertThat(result.get(45, TimeUnit.SECONDS)).as("payload echoed intact").isTrue();
        }
        threads.shutdown();
        assertThat(handler.errors).isEmpty();
    }

    @Test
    void theBoundEphemeralPortIsReadableAndIpv6Works() throws Exception {
        InetAddress loopback6 = Inet6Address.getByName("::1");
        SocketServer server = this.fixture.start(1, ListenerSettings.tcp("v6").address(loopback6).handler(new EchoHandler()).build());
        InetSocketAddress bound = (InetSocketAddress) server.listener("v6").address();
        assertThat(bound.getAddress()).isEqualTo(loopback6);
        try (Socket client = new Socket(loopback6, bound.getPort())) {
            client.setSoTimeout(5000);
            client.getOutputStream().write(7);
            assertThat(client.getInputStream().read()).isEqualTo(7);
        }
    }

    @Test
    void aClientThatResetsIsReportedAsAnErrorAndClosed() throws Exception {
        EchoHandler handler = new EchoHandler();
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("echo").handler(handler).build());
        Socket client = this.fixture.connect(server, "echo");
        client.getOutputStream().write(1);
        assertThat(client.getInputStream().read()).isEqualTo(1);
        client.setSoLinger(true, 0);
        client.close();
        ServerFixture.await(() -> handler.closed.get() == 1, "the reset connection is closed");
        assertThat(handler.errors).singleElement().isInstanceOfSatisfying(NativeIoException.class,
                (error) -> assertThat(error.error()).isEqualTo(NativeError.CONNECTION_RESET));
        assertThat(server.listener("echo").activeConnections()).isZero();
    }

    @Test
    @BlocksWorkers("a handler works until the reset has come")
    void whatAClientSentBeforeItResetIsHandedToTheHandlerBeforeTheError() throws Exception {
        // One worker, held in another connection's handler while the client sends its last line and
        // resets: the worker then finds the data and the reset together.
        List<String> heard = new CopyOnWriteArrayList<>();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch sent = new CountDownLatch(1);
        AtomicInteger closed = new AtomicInteger();
        ConnectionHandler handler = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                String text = StandardCharsets.US_ASCII.decode(data).toString();
                if (text.equals("hold")) {
                    holding.countDown();
                    sent.await(10, TimeUnit.SECONDS);
                    Thread.sleep(100);
                    return;
                }
                heard.add("data " + text);
            }

            @Override
            public void onError(Connection connection, Throwable error) {
                heard.add("error " + ((error instanceof NativeIoException native1) ? native1.error() : error));
            }

            @Override
            public void onClose(Connection connection) {
                closed.incrementAndGet();
            }
        };
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("last-words").handler(handler).build());
        Socket holder = this.fixture.connect(server, "last-words");
        Socket client = this.fixture.connect(server, "last-words");
        ServerFixture.await(() -> server.listener("last-words").activeConnections() == 2, "both connections open");
        holder.getOutputStream().write("hold".getBytes(StandardCharsets.US_ASCII));
        assertThat(holding.await(10, TimeUnit.SECONDS)).as("the worker held").isTrue();
        client.getOutputStream().write("last words".getBytes(StandardCharsets.US_ASCII));
        client.setSoLinger(true, 0);
        client.close();
        sent.countDown();
        ServerFixture.await(() -> closed.get() == 1, "the reset connection closed");
        if (System.getProperty("os.name").startsWith("Windows")) {
            // Windows drops what was unread when the reset arrives: the error alone is what it tells.
            assertThat(heard).endsWith("error CONNECTION_RESET");
        }
        else {
            assertThat(heard).containsExactly("data last words", "error CONNECTION_RESET");
        }
    }

    @Test
    void aReplyAndACloseReachAPeerThatSentMoreMeanwhileInFullAndThenItsEnd() throws Exception {
        // The handler answers the first bytes in bulk and closes; the peer sends more while the answer is
        // still on its way, on a small window. Those bytes are never read: a close with them unread resets,
        // and a reset drops what the socket had not sent.
        int reply = 1024 * 1024;
        CountDownLatch answered = new CountDownLatch(1);
        ConnectionHandler handler = (connection, data) -> {
            data.position(data.limit());
            connection.write(ByteBuffer.allocate(reply));
            connection.close();
            answered.countDown();
        };
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("bye").handler(handler)
                .socketOptions(new SocketOptions(true, 0, 16 * 1024, null, null, null, 0, -1)).build());
        Socket client = this.fixture.connectWithSmallWindow(server, "bye");
        client.getOutputStream().write("QUIT\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(answered.await(10, TimeUnit.SECONDS)).as("the handler answered").isTrue();
        client.getOutputStream().write("and one more thing\r\n".getBytes(StandardCharsets.US_ASCII));
        Thread.sleep(100);
        InputStream in = client.getInputStream();
        assertThat(ServerFixture.readCount(in, reply)).as("bytes of the reply read").isEqualTo(reply);
        assertThat(in.read()).as("what follows the reply").isEqualTo(-1);
    }

    @Test
    void aPeerThatKeepsItsEndOpenEndsTheClosedConnectionOnceTheWaitForItsFinIsOverAndStillGetsWhatTheSocketHeld() throws Exception {
        // The peer keeps its end open and reads nothing until the wait is over: its time ends the connection,
        // and what the server's socket still held (the peer's window being small) is sent all the same.
        int reply = 128 * 1024;
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("bye").handler(answersAndCloses(reply))
                .socketOptions(new SocketOptions(true, 0, 512 * 1024, null, null, null, 0, -1)).build());
        try (Socket client = connectWithTinyWindow(server, "bye")) {
            long asked = System.nanoTime();
            client.getOutputStream().write("QUIT\r\n".getBytes(StandardCharsets.US_ASCII));
            ServerFixture.await(() -> server.listener("bye").activeConnections() == 0, "the connection ended");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked)).as("how long the close waited, in ms")
                    .isBetween(TcpConnection.FIN_WAIT_MILLIS, TcpConnection.FIN_WAIT_MILLIS + 3_000);
            InputStream in = client.getInputStream();
            assertThat(ServerFixture.readCount(in, reply)).as("bytes of the reply read after the close").isEqualTo(reply);
            assertThat(in.read()).as("what follows the reply").isEqualTo(-1);
        }
    }

    @ParameterizedTest(name = "exclusive edge: {0}")
    @ValueSource(booleans = { false, true })
    @BlocksWorkers("the handler waits until the peer's bytes are all in the socket")
    void bytesLeftUnreadByTheCloseOfAHandlerAreDroppedAsTheWaitForTheFinBeginsSoThatItsEndResetsNothing(boolean exclusiveEdge)
            throws Exception {
        // The peer sends its request and more, and reads nothing until the wait for its FIN is over. The
        // handler waits until all of it is in the socket, answers and closes; the socket takes the reply
        // whole, and the wait begins in the same turn with the rest of the peer's bytes unread. Were they
        // still unread as the wait ends, the close would be a reset, which drops what the server's socket
        // still held of the reply (the peer's window being small).
        int reply = 128 * 1024;
        CountDownLatch written = new CountDownLatch(1);
        ConnectionHandler handler = (connection, data) -> {
            written.await(10, TimeUnit.SECONDS);
            data.position(data.limit());
            connection.write(ByteBuffer.allocate(reply));
            connection.close();
        };
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("bye").exclusiveEdge(exclusiveEdge).handler(handler)
                .socketOptions(new SocketOptions(true, 0, 512 * 1024, null, null, null, 0, -1)).build());
        try (Socket client = connectWithTinyWindow(server, "bye")) {
            byte[] request = new byte[32 * 1024];
            Arrays.fill(request, (byte) 'x');
            client.getOutputStream().write(request);
            client.getOutputStream().write(request);
            written.countDown();
            ServerFixture.await(() -> server.listener("bye").activeConnections() == 0, "the connection ended");
            InputStream in = client.getInputStream();
            assertThat(ServerFixture.readCount(in, reply)).as("bytes of the reply read after the close").isEqualTo(reply);
            assertThat(in.read()).as("what follows the reply").isEqualTo(-1);
        }
    }

    @Test
    void withALingerOfZeroACloseResetsAtOnceAndWaitsForNoFin() throws Exception {
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("reset").handler(answersAndCloses(16)).linger(Duration.ZERO).build());
        Socket client = this.fixture.connect(server, "reset");
        ServerFixture.await(() -> server.listener("reset").activeConnections() == 1, "the connection opened");
        client.getOutputStream().write("QUIT\r\n".getBytes(StandardCharsets.US_ASCII));
        ServerFixture.await(() -> server.listener("reset").activeConnections() == 0, "the connection ended");
        // (A close that waited for the FIN would have sent one: the read would find the end of the stream.)
        InputStream in = client.getInputStream();
        assertThat(ServerFixture.readCount(in, 16)).as("bytes of the reply").isEqualTo(16);
        assertThatExceptionOfType(SocketException.class).as("what follows the reply").isThrownBy(in::read);
    }

    /** @return a client whose 4 KB receive buffer leaves most of a reply in the server's socket, once its connection opened */
    private static Socket connectWithTinyWindow(SocketServer server, String listener) throws Exception {
        Socket client = new Socket();
        try {
            client.setReceiveBufferSize(4096);
            client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.listener(listener).portNumber()), 5000);
            client.setSoTimeout(10_000);
            ServerFixture.await(() -> server.listener(listener).activeConnections() == 1, "the connection opened");
            return client;
        }
        catch (Exception | AssertionError ex) {
            client.close();
            throw ex;
        }
    }

    /** @return a handler that answers any bytes with this many, and closes */
    private static ConnectionHandler answersAndCloses(int reply) {
        return (connection, data) -> {
            data.position(data.limit());
            connection.write(ByteBuffer.allocate(reply));
            connection.close();
        };
    }

    @Test
    void aHandlerThatThrowsClosesItsConnectionAndTheWorkerServesOthers() throws Exception {
        ConnectionHandler handler = (connection, data) -> {
            if (data.get(data.position()) == '!') {
                throw new IllegalStateException("boom");
            }
            connection.write(data);
        };
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("echo").handler(handler).build());
        Socket failing = this.fixture.connect(server, "echo");
        failing.getOutputStream().write('!');
        assertThat(failing.getInputStream().read()).as("closed by the server").isEqualTo(-1);
        Socket healthy = this.fixture.connect(server, "echo");
        healthy.getOutputStream().write('a');
        assertThat(healthy.getInputStream().read()).isEqualTo('a');
        assertThat(server.listener("echo").handlerErrors()).isEqualTo(1);
    }

    @Test
    void connectionsAboveTheMaximumAreClosedAtOnceWithoutStallingOthers() throws Exception {
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("echo").maxConnections(2).handler(new EchoHandler()).build());
        Socket first = this.fixture.connect(server, "echo");
        Socket second = this.fixture.connect(server, "echo");
        ServerFixture.await(() -> server.listener("echo").activeConnections() == 2, "two connections are open");
        Socket third = this.fixture.connect(server, "echo");
        assertThat(third.getInputStream().read()).as("the third is closed at once").isEqualTo(-1);
        assertThat(server.listener("echo").rejected()).isEqualTo(1);
        for (Socket client : List.of(first, second)) {
            client.getOutputStream().write('x');
            assertThat(client.getInputStream().read()).isEqualTo('x');
        }
    }

    @Test
    void anIdleConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        EchoHandler handler = new EchoHandler();
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("echo").idleTimeout(Duration.ofMillis(200))
                .handler(handler).build());
        Socket client = this.fixture.connect(server, "echo");
        client.getOutputStream().write('x');
        assertThat(client.getInputStream().read()).isEqualTo('x');
        long start = System.nanoTime();
        assertThat(client.getInputStream().read()).as("closed by the server when idle").isEqualTo(-1);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
        ServerFixture.await(() -> handler.closed.get() == 1, "onClose is called");
    }

    @Test
    void writesFromAnotherThreadReachTheClientInOrder() throws Exception {
        List<Connection> opened = new java.util.concurrent.CopyOnWriteArrayList<>();
        ConnectionHandler handler = new ConnectionHandler() {
            @Override
            public void onOpen(Connection connection) {
                opened.add(connection);
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
            }
        };
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("push").handler(handler).build());
        Socket client = this.fixture.connect(server, "push");
        ServerFixture.await(() -> opened.size() == 1, "the connection is open");
        Connection connection = opened.get(0);
        for (int i = 0; i < 100; i++) {
            connection.write(("line " + i + "\n").getBytes(StandardCharsets.UTF_8));
        }
        connection.shutdownOutput();
        String received = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(received.lines()).hasSize(100).startsWith("line 0").endsWith("line 99");
    }

    @Test
    void blockingHandlersOnAnExecutorNeverHandleOneConnectionTwiceAtOnce() throws Exception {
        AtomicInteger overlaps = new AtomicInteger();
        ConnectionHandler handler = (connection, data) -> {
            Object busy = connection.attributes().putIfAbsent("busy", Boolean.TRUE);
            if (busy != null) {
                overlaps.incrementAndGet();
            }
            Thread.sleep(2);
            connection.write(data);
            connection.attributes().remove("busy");
        };
        ExecutorService executor = Executors.newFixedThreadPool(8);
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("blocking").handler(handler).handlerExecutor(executor).build());
        Socket client = this.fixture.connect(server, "blocking");
        byte[] payload = new byte[20_000];
        new Random(1).nextBytes(payload);
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; i < payload.length; i += 100) {
                    client.getOutputStream().write(payload, i, 100);
                }
            }
            catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        });
        writer.start();
        byte[] echoed = client.getInputStream().readNBytes(payload.length);
        writer.join();
        assertThat(echoed).isEqualTo(payload);
        assertThat(overlaps.get()).isZero();
        executor.shutdown();
    }
}
