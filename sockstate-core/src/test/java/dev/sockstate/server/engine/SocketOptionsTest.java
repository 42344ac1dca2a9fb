package dev.sockstate.server.engine;

import static dev.sockstate.server.engine.ServerFixture.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Setting;
import dev.sockstate.server.SocketOptions.KeepAlive;
import dev.sockstate.server.SocketOptions;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.observer.ServerObserver;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The socket options of listeners and clients on the real backend: each read back from the sockets
 * the server accepted or opened, each one the backend has not refused before anything is bound, and
 * SO_LINGER as a peer sees it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SocketOptionsTest {

    private final ServerFixture fixture = new ServerFixture();

    private final Queue<TcpConnection> opened = new ConcurrentLinkedQueue<>();

    private final List<Socket> peers = new ArrayList<>();

    private final Backend backend = ServerFixture.backend();

    private final NativeSockets sockets = this.backend.sockets();

    @AfterEach
    void stop() throws IOException {
        for (Socket peer : this.peers) {
            peer.close();
        }
        this.fixture.close();
    }

    @Test
    void everyAcceptedConnectionHasTheListenersOptionsThatTheBackendHas() throws Exception {
        SocketOptions options = supported(tuned());
        ListenerSettings listener = ServerFixture.tcp("tuned").socketOptions(options).handler(echo()).build();
        SocketServer server = this.fixture.start(2, listener);
        for (int i = 0; i < 3; i++) {
            echoOnce(connect(server.listener("tuned").portNumber()), i);
        }
        await(() -> this.opened.size() == 3, "three connections to open");
        SocketOptionList expected = SocketOptionList.of(options, Protocol.TCP, false, false);
        assertThat(expected.size()).as("options checked").isGreaterThanOrEqualTo(7);
        for (TcpConnection connection : this.opened) {
            assertHas(connection.handle, expected);
        }
    }

    @Test
    void aClientsConnectionsHaveItsOptionsThatTheBackendHas() throws Exception {
        SocketOptions options = supported(tuned());
        try (ServerSocket peer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            ClientSettings settings = ClientSettings.builder("tuned").address("127.0.0.1", peer.getLocalPort()).poolSize(1)
                    .socketOptions(options).handler(echo()).build();
            SocketClient client = this.fixture.startWithClients(List.of(settings), ServerObserver.NONE).client("tuned");
            this.peers.add(peer.accept());
            await(() -> client.connections().size() == 1, "the client to connect");
            TcpConnection connection = (TcpConnection) client.connections().get(0);
            assertHas(connection.handle, SocketOptionList.of(options, Protocol.TCP, false, false));
        }
    }

    @Test
    void anOptionTheBackendHasNotIsRefusedNamingTheBackendBeforeAnythingIsBoundAndOneItHasIsTaken() {
        List<NativeSocketOption> asked = List.of(NativeSocketOption.USER_TIMEOUT, NativeSocketOption.NOT_SENT_LOW_WATERMARK,
                NativeSocketOption.TYPE_OF_SERVICE, NativeSocketOption.KEEP_ALIVE_IDLE);
        for (NativeSocketOption option : asked) {
            SocketOptions options = only(option);
            String why = this.sockets.unsupported(option, 1);
            ListenerSettings listener = ServerFixture.tcp("tuned").socketOptions(options).handler(echo()).build();
            List<WorkerGroupSettings> groups = List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1));
            if (why == null) {
                SocketServer server = this.fixture.start(this.backend, groups, ServerObserver.NONE, listener);
                assertThat(server.listener("tuned").portNumber()).as("bound with " + option.nativeName()).isPositive();
                server.stop(Duration.ofSeconds(5));
                continue;
            }
            assertThatExceptionOfType(InvalidSettingException.class)
                    .isThrownBy(() -> new SocketServer(this.backend, groups, List.of(listener), ServerObserver.NONE))
                    .satisfies((ex) -> assertThat(ex.ownerName()).isEqualTo("tuned"))
                    .withMessageContaining("Listener 'tuned'").withMessageContaining("the " + this.backend.name() + " backend")
                    .withMessageContaining(option.nativeName()).withMessageContaining(why);
        }
    }

    @Test
    void theJdkBackendRefusesTheOptionsTheJdkHasNot() {
        Backend nio = dev.sockstate.port.Backends.select("nio");
        ListenerSettings listener = ServerFixture.tcp("tuned").userTimeout(Duration.ofSeconds(5)).handler(echo()).build();
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> new SocketServer(nio, List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)), List.of(listener),
                        ServerObserver.NONE))
                .satisfies((ex) -> assertThat(ex.setting()).isEqualTo(Setting.USER_TIMEOUT))
                .withMessage("Listener 'tuned' sets userTimeout, which the nio backend cannot set (TCP_USER_TIMEOUT): the JDK's socket"
                        + " channels have no TCP_USER_TIMEOUT");
    }

    @Test
    void aLingerOfZeroResetsTheConnectionWhenTheServerClosesIt() throws Exception {
        ListenerSettings listener = ServerFixture.tcp("reset").linger(Duration.ZERO).handler(closeOnData()).build();
        SocketServer server = this.fixture.start(1, listener);
        Socket peer = connect(server.listener("reset").portNumber());
        peer.getOutputStream().write('x');
        assertThatExceptionOfType(SocketException.class).isThrownBy(() -> peer.getInputStream().read())
                .withMessageContaining("reset");
    }

    @Test
    void withoutALingerTheServersCloseIsAnOrderlyEndOfStream() throws Exception {
        ListenerSettings listener = ServerFixture.tcp("orderly").handler(closeOnData()).build();
        SocketServer server = this.fixture.start(1, listener);
        Socket peer = connect(server.listener("orderly").portNumber());
        peer.getOutputStream().write('x');
        assertThat(peer.getInputStream().read()).isEqualTo(-1);
    }

    @Test
    void aCloseThatLingersForUnsentDataKeepsNoWorkerWaiting() throws Exception {
        assumeThat(this.sockets.unsupported(NativeSocketOption.LINGER, 5)).as("a positive linger on this backend").isNull();
        int unsent = 128 * 1024;
        ConnectionHandler handler = new ConnectionHandler() {

            @Override
            public void onOpen(Connection connection) {
                SocketOptionsTest.this.opened.add((TcpConnection) connection);
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                if (data.get(0) == 'w') {
                    // More than the peer's window takes: the rest waits in the kernel when the close comes.
                    connection.write(ByteBuffer.allocate(unsent));
                    connection.close();
                }
                else {
                    connection.write(data);
                }
            }
        };
        ListenerSettings listener = ServerFixture.tcp("lingering").linger(Duration.ofSeconds(5)).sendBufferSize(512 * 1024)
                .handler(handler).build();
        SocketServer server = this.fixture.start(1, listener);
        int port = server.listener("lingering").portNumber();
        Socket stalled = new Socket();
        this.peers.add(stalled);
        stalled.setReceiveBufferSize(4096);
        stalled.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
        stalled.setSoTimeout(10_000);
        stalled.getOutputStream().write('w');
        await(() -> this.opened.size() == 1 && this.opened.peek().isFinished(), "the stalled connection to finish");
        // The only worker answers another peer at once, while the close waits for the stalled peer to take its data.
        Socket other = connect(port);
        long asked = System.nanoTime();
        echoOnce(other, 7);
        long answeredMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
        assertThat(answeredMillis).as("the other peer's answer, the linger being 5 s").isLessThan(2500);
        Thread closer = closer();
        assertThat(closer).as("the close still waiting for the unsent data, on a thread of its own").isNotNull();
        assertThat(ServerFixture.readCount(stalled.getInputStream(), unsent)).as("what the stalled peer reads in the end").isEqualTo(unsent);
        await(() -> closer.getState() == Thread.State.WAITING || closer.getState() == Thread.State.TIMED_WAITING
                || !closer.isAlive(), "the close to end once the data was taken");
    }

    /** @return the thread that closes the lingering listener's sockets, while one does */
    private static Thread closer() {
        return Thread.getAllStackTraces().keySet().stream().filter((thread) -> thread.getName().startsWith("sockstate-linger-lingering-")
                && thread.getState() == Thread.State.RUNNABLE)
                .findFirst().orElse(null);
    }

    /** Options of every kind, with values no system has by default. */
    private static SocketOptions tuned() {
        return new SocketOptions(true, 96 * 1024, 256 * 1024, KeepAlive.of(Duration.ofSeconds(30), Duration.ofSeconds(5), 4),
                Duration.ofSeconds(7), Duration.ZERO, 16 * 1024, 0x28);
    }

    /** @return the options, less those the backend has not */
    private SocketOptions supported(SocketOptions options) {
        return new SocketOptions(options.tcpNoDelay(), options.receiveBufferSize(), options.sendBufferSize(),
                has(NativeSocketOption.KEEP_ALIVE_IDLE) ? options.keepAlive() : KeepAlive.SYSTEM_TIMING,
                has(NativeSocketOption.USER_TIMEOUT) ? options.userTimeout() : null, options.linger(),
                has(NativeSocketOption.NOT_SENT_LOW_WATERMARK) ? options.notSentLowWatermark() : 0,
                has(NativeSocketOption.TYPE_OF_SERVICE) ? options.trafficClass() : -1);
    }

    private boolean has(NativeSocketOption option) {
        return this.sockets.unsupported(option, 1) == null;
    }

    /** @return options that ask for one native option beside TCP_NODELAY (and SO_KEEPALIVE before its timing) */
    private static SocketOptions only(NativeSocketOption option) {
        return switch (option) {
            case USER_TIMEOUT -> new SocketOptions(true, 0, 0, null, Duration.ofSeconds(7), null, 0, -1);
            case NOT_SENT_LOW_WATERMARK -> new SocketOptions(true, 0, 0, null, null, null, 16 * 1024, -1);
            case TYPE_OF_SERVICE -> new SocketOptions(true, 0, 0, null, null, null, 0, 0x28);
            case KEEP_ALIVE_IDLE -> new SocketOptions(true, 0, 0, new KeepAlive(Duration.ofSeconds(30), null, 0), null, null, 0, -1);
            default -> throw new IllegalArgumentException(option.name());
        };
    }

    private void assertHas(long handle, SocketOptionList expected) throws Exception {
        for (int i = 0; i < expected.size(); i++) {
            NativeSocketOption option = expected.option(i);
            int read = this.sockets.getOption(handle, option);
            assertThat(SocketOptionList.holds(option, expected.value(i), read))
                    .as(option.nativeName() + " of socket " + handle + ": set " + expected.value(i) + ", read " + read).isTrue();
        }
    }

    private Socket connect(int port) throws IOException {
        Socket peer = new Socket();
        this.peers.add(peer);
        peer.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
        peer.setSoTimeout(10_000);
        return peer;
    }

    private static void echoOnce(Socket peer, int value) throws IOException {
        peer.getOutputStream().write(value);
        InputStream in = peer.getInputStream();
        assertThat(in.read()).isEqualTo(value);
    }

    private ConnectionHandler echo() {
        return new ConnectionHandler() {

            @Override
            public void onOpen(Connection connection) {
                SocketOptionsTest.this.opened.add((TcpConnection) connection);
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                connection.write(data);
            }
        };
    }

    private static ConnectionHandler closeOnData() {
        return new ConnectionHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                connection.close();
            }
        };
    }
}
