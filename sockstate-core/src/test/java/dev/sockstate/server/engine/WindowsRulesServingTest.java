package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Backends;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.Trigger;
import dev.sockstate.port.winsock.WinsockBackend;
import dev.sockstate.port.winsock.WinsockEmulator;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ListenerBindException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import dev.sockstate.server.observer.ServerObserver;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The server on the winsock backend bound to the emulator in its strict mode, which behaves as
 * Windows documents where Linux would be kinder: an edge only for a change after the enable,
 * SO_ERROR read as 0 after an error notification, SO_REUSEADDR sharing a port in use, whole calls
 * refused, sends refused for want of buffers. Each test fails on a runtime that relies on Linux.
 */
@EnabledIfSystemProperty(named = WinsockBackend.LIBRARY_PROPERTY, matches = ".+", disabledReason = "the Winsock emulator is built on Linux only")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WindowsRulesServingTest {

    private final ServerFixture fixture = new ServerFixture();

    private final WinsockEmulator emulator = WinsockEmulator.load();

    private final Backend winsock = Backends.select("winsock");

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
        this.emulator.emu_reset();
    }

    private SocketServer start(int workers, ListenerSettings listener) {
        return this.fixture.startOnStrictEmulator(this.winsock, this.emulator, workers, listener);
    }

    @Test
    @BlocksWorkers("holds onOpen, before the first enable, until the client's bytes are in")
    void dataThatArrivedBeforeAnEdgePersistentRegistrationWasEnabledIsEchoed() throws Exception {
        assertDataSentBeforeTheEnableIsEchoed(1, (listener) -> listener.trigger(Trigger.EDGE_PERSISTENT));
    }

    @Test
    @BlocksWorkers("holds onOpen, before the first enable, until the client's bytes are in")
    void dataThatArrivedBeforeAnExclusiveEdgeRegistrationWasEnabledIsEchoed() throws Exception {
        assertDataSentBeforeTheEnableIsEchoed(2, (listener) -> listener.exclusiveEdge(true));
    }

    @Test
    @BlocksWorkers("holds onOpen, before the first enable, until the client's bytes are in")
    void dataThatArrivedBeforeAnEdgeOneShotRegistrationWasEnabledIsEchoed() throws Exception {
        assertDataSentBeforeTheEnableIsEchoed(2, (listener) -> listener.trigger(Trigger.EDGE_ONESHOT));
    }

    /** The handler's onOpen, which runs before the connection's first enable, waits until the client's bytes are in. */
    private void assertDataSentBeforeTheEnableIsEchoed(int workers, Consumer<ListenerSettings.Builder> trigger) throws Exception {
        CountDownLatch sent = new CountDownLatch(1);
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onOpen(Connection connection) throws Exception {
                super.onOpen(connection);
                assertThat(sent.await(10, TimeUnit.SECONDS)).isTrue();
            }
        };
        ListenerSettings.Builder listener = ServerFixture.tcp("edge").handler(handler);
        trigger.accept(listener);
        SocketServer server = start(workers, listener.build());
        Socket client = this.fixture.connect(server, "edge");
        client.getOutputStream().write("early".getBytes(StandardCharsets.US_ASCII));
        sent.countDown();
        assertThat(read(client, 5)).isEqualTo("early");
        client.getOutputStream().write("later".getBytes(StandardCharsets.US_ASCII));
        assertThat(read(client, 5)).isEqualTo("later");
    }

    @Test
    void aHalfClosedConnectionWithNothingToSendIsDisabledNotEnabledWithNoEventsAndLaterWritesArrive() throws Exception {
        assertHalfClosedConnectionWaitsForLaterWrites(2, Trigger.LEVEL_ONESHOT);
        assertHalfClosedConnectionWaitsForLaterWrites(1, Trigger.EDGE_PERSISTENT);
    }

    /** The handler keeps writing on a half-closed connection: with nothing to read or send, its registration watches nothing. */
    private void assertHalfClosedConnectionWaitsForLaterWrites(int workers, Trigger trigger) throws Exception {
        AtomicReference<TcpConnection> kept = new AtomicReference<>();
        CountDownLatch hungUp = new CountDownLatch(1);
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onOpen(Connection connection) throws Exception {
                super.onOpen(connection);
                kept.set((TcpConnection) connection);
            }

            @Override
            public void onHangup(Connection connection) {
                hungUp.countDown();
            }
        };
        SocketServer server = start(workers, ServerFixture.tcp("half-" + trigger).trigger(trigger).handler(handler).build());
        Socket client = this.fixture.connect(server, "half-" + trigger);
        client.shutdownOutput();
        assertThat(hungUp.await(10, TimeUnit.SECONDS)).isTrue();
        TcpConnection connection = kept.get();
        ServerFixture.await(() -> !connection.isOwned(), "the worker let the connection go");
        connection.write(ByteBuffer.wrap("late".getBytes(StandardCharsets.US_ASCII)));
        assertThat(read(client, 4)).isEqualTo("late");
        assertThat(handler.errors).isEmpty();
        connection.close();
        assertThat(readToEnd(client)).isEmpty();
    }

    @Test
    void aResetIsNamedToTheHandlerEvenWhenSoErrorReadsZero() throws Exception {
        Queue<Throwable> named = new ConcurrentLinkedQueue<>();
        CountDownLatch failed = new CountDownLatch(1);
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onError(Connection connection, Throwable error) {
                named.add((error != null) ? error : new AssertionError("onError was given no error"));
                failed.countDown();
            }
        };
        SocketServer server = start(1, ServerFixture.tcp("reset").handler(handler).build());
        Socket client = this.fixture.connect(server, "reset");
        client.getOutputStream().write("x".getBytes(StandardCharsets.US_ASCII));
        assertThat(read(client, 1)).isEqualTo("x");
        client.setSoLinger(true, 0);
        client.close();
        assertThat(failed.await(10, TimeUnit.SECONDS)).as("onError called").isTrue();
        assertThat(named).singleElement().isInstanceOfSatisfying(NativeIoException.class,
                (error) -> assertThat(error.error()).isEqualTo(NativeError.CONNECTION_RESET));
    }

    @Test
    @BlocksWorkers("holds onOpen until the data and the reset are in")
    void dataThatCameBeforeAResetReachesTheHandlerAReadAtATimeAndThenTheResetIsNamed() throws Exception {
        Queue<Throwable> named = new ConcurrentLinkedQueue<>();
        AtomicLong received = new AtomicLong();
        CountDownLatch reset = new CountDownLatch(1);
        CountDownLatch failed = new CountDownLatch(1);
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onOpen(Connection connection) throws Exception {
                super.onOpen(connection);
                // The bytes and the reset are both in before the connection's first turn.
                assertThat(reset.await(10, TimeUnit.SECONDS)).isTrue();
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                received.addAndGet(data.remaining());
            }

            @Override
            public void onError(Connection connection, Throwable error) {
                named.add(error);
                failed.countDown();
            }
        };
        // Level-triggered with a small read buffer: one read a turn, the error notified again each time.
        SocketServer server = this.fixture.start(this.winsock,
                List.of(new WorkerGroupSettings(ListenerSettings.DEFAULT_GROUP, 1, 64, Duration.ofSeconds(1), 256, "sockstate-")),
                ServerObserver.NONE, ServerFixture.tcp("reset").trigger(Trigger.LEVEL_ONESHOT).handler(handler).build());
        Socket client = this.fixture.connect(server, "reset");
        client.getOutputStream().write(new byte[4096]);
        ServerFixture.await(() -> server.listener("reset").activeConnections() == 1, "the connection opened");
        client.setSoLinger(true, 0);
        client.close();
        reset.countDown();
        assertThat(failed.await(10, TimeUnit.SECONDS)).as("onError called").isTrue();
        assertThat(named).singleElement().isInstanceOfSatisfying(NativeIoException.class,
                (error) -> assertThat(error.error()).isEqualTo(NativeError.CONNECTION_RESET));
        assertThat(received.get()).as("bytes handed on before the reset was named").isGreaterThan(256);
    }

    @Test
    void aCallRefusedForWantOfMemoryIsMadeAgainAndNoConnectionFailsForIt() throws Exception {
        EchoHandler handler = new EchoHandler();
        SocketServer server = start(1, ServerFixture.tcp("echo").handler(handler).build());
        Socket client = this.fixture.connect(server, "echo");
        client.getOutputStream().write('a');
        assertThat(read(client, 1)).isEqualTo("a");
        // The re-arm after the next echo is refused twice with the whole call: a shortage that passes.
        assertThat(this.emulator.emu_reject_next_batch(WinsockEmulator.ANY_PORT, 2, WinsockEmulator.ERROR_NOT_ENOUGH_MEMORY)).isZero();
        for (int i = 0; i < 5; i++) {
            client.getOutputStream().write('b');
            assertThat(read(client, 1)).isEqualTo("b");
        }
        assertThat(handler.errors).isEmpty();
        assertThat(handler.closed.get()).isZero();
    }

    @Test
    void aSecondServerCannotBindThePortAListenerHasEvenWithReuseAddress() throws Exception {
        SocketServer first = start(1, ServerFixture.tcp("first").reuseAddress(true).handler(new EchoHandler()).build());
        int port = first.listener("first").portNumber();
        ListenerSettings second = ListenerSettings.tcp("second").address(InetAddress.getLoopbackAddress()).portNumber(port)
                .reuseAddress(true).handler(new EchoHandler()).build();
        assertThatExceptionOfType(ListenerBindException.class).isThrownBy(() -> start(1, second))
                .satisfies((refused) -> assertThat(refused.isPortInUse()).isTrue());
        Socket client = this.fixture.connect(first, "first");
        client.getOutputStream().write("mine".getBytes(StandardCharsets.US_ASCII));
        assertThat(read(client, 4)).as("the first server keeps its port").isEqualTo("mine");
    }

    @Test
    void aRegistrationThePortRefusesInAWholeCallFailsItsConnectionAloneAndTheOthersAreServed() throws Exception {
        Queue<Connection> connections = new ConcurrentLinkedQueue<>();
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onOpen(Connection connection) throws Exception {
                super.onOpen(connection);
                connections.add(connection);
            }
        };
        SocketServer server = start(1, ServerFixture.tcp("echo").handler(handler).build());
        Socket refused = this.fixture.connect(server, "echo");
        ServerFixture.await(() -> connections.size() == 1, "the first connection opened");
        Socket served = this.fixture.connect(server, "echo");
        ServerFixture.await(() -> connections.size() == 2, "the second connection opened");
        assertThat(this.emulator.emu_reject_batches_with(((TcpConnection) connections.peek()).handle,
                WinsockEmulator.ERROR_INVALID_PARAMETER)).isZero();
        refused.getOutputStream().write("a".getBytes(StandardCharsets.US_ASCII));
        assertThat(readToEnd(refused)).as("the connection whose re-arm is refused is closed").isIn("", "a");
        for (int i = 0; i < 20; i++) {
            served.getOutputStream().write("b".getBytes(StandardCharsets.US_ASCII));
            assertThat(read(served, 1)).isEqualTo("b");
        }
        ServerFixture.await(() -> handler.closed.get() == 1, "the refused connection closed");
    }

    @Test
    void aSendRefusedForWantOfBuffersIsRetriedAndTheReplyArrivesWhole() throws Exception {
        EchoHandler handler = refusingSends(3);
        SocketServer server = start(1, ServerFixture.tcp("echo").handler(handler).build());
        Socket client = this.fixture.connect(server, "echo");
        client.getOutputStream().write("patience".getBytes(StandardCharsets.US_ASCII));
        assertThat(read(client, 8)).isEqualTo("patience");
        assertThat(handler.errors).isEmpty();
    }

    @Test
    void sendsRefusedForWantOfBuffersTooOftenFailTheConnectionNamingWhy() throws Exception {
        EchoHandler handler = refusingSends(WritePath.NO_BUFFER_RETRIES + 1);
        SocketServer server = start(1, ServerFixture.tcp("echo").handler(handler).build());
        Socket client = this.fixture.connect(server, "echo");
        client.getOutputStream().write("never".getBytes(StandardCharsets.US_ASCII));
        assertThat(readToEnd(client)).isEmpty();
        ServerFixture.await(() -> !handler.errors.isEmpty(), "onError called");
        assertThat(handler.errors).singleElement().isInstanceOfSatisfying(NativeIoException.class,
                (error) -> assertThat(error.error()).isEqualTo(NativeError.NO_MEMORY));
    }

    /** @return an echo handler whose connection's next sends are refused with WSAENOBUFS, from its open */
    private EchoHandler refusingSends(int count) {
        return new EchoHandler() {

            @Override
            public void onOpen(Connection connection) throws Exception {
                super.onOpen(connection);
                long handle = ((TcpConnection) connection).handle;
                assertThat(WindowsRulesServingTest.this.emulator.emu_fail_next_sends(handle, count, WinsockEmulator.WSAENOBUFS)).isZero();
            }
        };
    }

    private static String read(Socket socket, int length) throws IOException {
        return new String(TlsFixture.readFully(socket.getInputStream(), length), StandardCharsets.US_ASCII);
    }

    private static String readToEnd(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        try {
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
        catch (IOException ex) {
            // reset: nothing more comes
            return "";
        }
    }
}
