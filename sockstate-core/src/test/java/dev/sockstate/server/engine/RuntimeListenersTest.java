package dev.sockstate.server.engine;

import static dev.sockstate.server.engine.ServerFixture.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sockstate.port.Protocol;
import dev.sockstate.server.BoundListener;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerBindException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.admission.Admission;
import dev.sockstate.server.admission.Refusal;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Listeners and clients added to and removed from a running server, on the real backend with real
 * peers: an added listener serves at once beside the others, past the room the server made for its
 * first listeners; a removed one answers what arrived, sends its FIN and accepts no more while the
 * others go on, its observer told; an added client connects and requests, a removed one closes its
 * connections; names taken, groups unknown and ports in use are refused, and nothing is added.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RuntimeListenersTest {

    private final ServerFixture fixture = new ServerFixture();

    private final Queue<String> removed = new ConcurrentLinkedQueue<>();

    private final List<Socket> peers = new ArrayList<>();

    private final ExecutorService executor = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws IOException {
        for (Socket peer : this.peers) {
            peer.close();
        }
        this.fixture.close();
        this.executor.shutdownNow();
    }

    @Test
    void anAddedListenerServesAtOnceBesideTheOthersAndPastTheRoomMadeAtTheStart() throws Exception {
        SocketServer server = start();
        BoundListener added = server.addListener(ServerFixture.tcp("added").handler(new EchoHandler()).maxConnections(300).build());
        assertThat(added).isNotNull();
        assertThat(added.serving()).isTrue();
        assertThat(server.listeners()).extracting(BoundListener::name).containsExactly("first", "added");
        assertThat(server.listenerSettings()).extracting(ListenerSettings::name).containsExactly("first", "added");
        // More connections than the room the server made for its first listener's 16 and some.
        List<Socket> many = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            many.add(connect(added.portNumber()));
        }
        for (Socket peer : many) {
            assertThat(echoes(peer)).isTrue();
        }
        assertThat(echoes(connect(server.listener("first").portNumber()))).as("the first listener's echo").isTrue();
        assertThat(server.listener("added").activeConnections()).isEqualTo(200);
    }

    @Test
    void aRemovedListenerAnswersWhatArrivedSendsItsFinAndAcceptsNoMoreWhileTheOthersGoOn() throws Exception {
        SocketServer server = start();
        SlowAnswer slow = new SlowAnswer();
        int port = server.addListener(ServerFixture.tcp("leaving").handler(slow).handlerExecutor(this.executor).build()).portNumber();
        Socket peer = connect(port);
        peer.getOutputStream().write("question\n".getBytes(StandardCharsets.US_ASCII));
        await(() -> slow.asked, "the question to reach the handler");
        long start = System.nanoTime();
        assertThat(server.removeListener("leaving", Duration.ofSeconds(5))).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("ms the removal waited for the answer")
                .isGreaterThanOrEqualTo(250);
        InputStream in = peer.getInputStream();
        assertThat(new String(in.readNBytes(7), StandardCharsets.US_ASCII)).isEqualTo("answer\n");
        assertThat(endOf(in)).as("the FIN after the answer").isTrue();
        assertThat(server.listeners()).extracting(BoundListener::name).containsExactly("first");
        assertThat(server.listenerSettings()).extracting(ListenerSettings::name).containsExactly("first");
        assertThat(this.removed).containsExactly("leaving");
        assertThatThrownBy(() -> connectRefusedOrReset(port)).as("a connect to the removed listener").isInstanceOf(IOException.class);
        assertThat(echoes(connect(server.listener("first").portNumber()))).as("the first listener's echo").isTrue();
        assertThat(server.removeListener("leaving", Duration.ofSeconds(1))).as("a second removal").isFalse();
    }

    @Test
    void aListenerRemovedAndAddedAgainUnderItsNameServesAfresh() throws Exception {
        SocketServer server = start();
        int port = server.addListener(ServerFixture.tcp("again").handler(new EchoHandler()).build()).portNumber();
        assertThat(echoes(connect(port))).isTrue();
        server.removeListener("again", Duration.ofSeconds(1));
        BoundListener again = server.addListener(ServerFixture.tcp("again").handler(new EchoHandler()).portNumber(port).build());
        assertThat(again.portNumber()).isEqualTo(port);
        assertThat(again.accepted()).as("accepted by the new listener").isZero();
        assertThat(echoes(connect(port))).isTrue();
    }

    @Test
    void aNameTakenAGroupUnknownOrAPortInUseIsRefusedAndNothingIsAdded() throws Exception {
        SocketServer server = start();
        assertThatThrownBy(() -> server.addListener(ServerFixture.tcp("first").handler(new EchoHandler()).build()))
                .isInstanceOf(InvalidSettingException.class).hasMessageContaining("first");
        assertThatThrownBy(() -> server.addListener(ServerFixture.tcp("elsewhere").group("nowhere").handler(new EchoHandler()).build()))
                .isInstanceOf(InvalidSettingException.class).hasMessageContaining("nowhere");
        int taken = server.listener("first").portNumber();
        assertThatThrownBy(() -> server.addListener(ServerFixture.tcp("clash").handler(new EchoHandler()).portNumber(taken).build()))
                .isInstanceOf(ListenerBindException.class).hasMessageContaining("clash");
        assertThat(server.listenerSettings()).extracting(ListenerSettings::name).containsExactly("first");
        assertThat(server.listeners()).extracting(BoundListener::name).containsExactly("first");
        assertThat(echoes(connect(taken))).isTrue();
    }

    @Test
    void aListenerAddedWhileTheServerIsStoppedIsBoundAtTheNextStart() throws Exception {
        SocketServer server = start();
        server.stop(Duration.ofSeconds(1));
        assertThat(server.addListener(ServerFixture.tcp("later").handler(new EchoHandler()).build())).isNull();
        server.start();
        assertThat(echoes(connect(server.listener("later").portNumber()))).isTrue();
    }

    @Test
    void anAddedClientConnectsAndRequestsAndARemovedOneClosesItsConnections() throws Exception {
        SocketServer server = start();
        int port = server.addListener(ServerFixture.tcp("lines").framing(Framing.line()).handler(new ConnectionHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                connection.write(data);
            }
        }).build()).portNumber();
        SocketClient client = server.addClient(ClientSettings.builder("backend").address("127.0.0.1", port).poolSize(2)
                .framing(Framing.line()).build());
        assertThat(client).isNotNull();
        await(() -> client.connections().size() == 2, "the pool's two connections to open");
        assertThat(client.request("ping", String.class).get(5, TimeUnit.SECONDS)).isEqualTo("ping");
        assertThat(server.clientSettings()).extracting(ClientSettings::name).containsExactly("backend");
        await(() -> server.listener("lines").activeConnections() == 2, "the pool's two connections");
        assertThat(server.removeClient("backend", Duration.ofSeconds(2))).isTrue();
        await(() -> server.listener("lines").activeConnections() == 0, "the pool's connections to close");
        assertThat(this.removed).containsExactly("client backend");
        assertThat(server.clients()).isEmpty();
        assertThatThrownBy(() -> server.client("backend")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRunningListenersMaximumRisesAndFallsTheConnectionsOpenStaying() throws Exception {
        SocketServer server = start();
        int port = server.listener("first").portNumber();
        List<Socket> open = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            open.add(connect(port));
            assertThat(echoes(open.get(i))).isTrue();
        }
        assertThat(servedAtOnce(port)).as("a fifth connection at the maximum of 4").isFalse();
        assertThat(server.changeMaxConnections("first", 6)).isEqualTo(4);
        assertThat(servedAtOnce(port)).as("a fifth connection once the maximum is 6").isTrue();
        assertThat(server.changeMaxConnections("first", 2)).isEqualTo(6);
        assertThat(servedAtOnce(port)).as("a connection over the lowered maximum").isFalse();
        for (Socket peer : open) {
            assertThat(echoes(peer)).as("a connection open before the maximum was lowered").isTrue();
        }
        assertThat(server.listenerSettings("first").maxConnections()).isEqualTo(2);
        assertThatThrownBy(() -> server.changeMaxConnections("first", 0)).isInstanceOf(InvalidSettingException.class);
    }

    @Test
    void aRunningListenersAdmissionChangesAndLifts() throws Exception {
        SocketServer server = start();
        int port = server.listener("first").portNumber();
        Socket before = connectFrom("127.0.0.66", port);
        assertThat(echoes(before)).isTrue();
        assertThat(server.changeAdmission("first", Admission.builder().deny(List.of("127.0.0.66")).build())).isEqualTo(Admission.NONE);
        assertThat(echoesFrom("127.0.0.66", port)).as("a denied source once the rules changed").isFalse();
        assertThat(echoesFrom("127.0.0.67", port)).as("another source").isTrue();
        assertThat(echoes(before)).as("the denied source's connection opened before").isTrue();
        assertThat(server.listener("first").rejectedBy()).containsEntry(Refusal.DENIED, 1L);
        server.changeAdmission("first", Admission.NONE);
        assertThat(echoesFrom("127.0.0.66", port)).as("the source once the rules were lifted").isTrue();
        assertThatThrownBy(() -> server.changeAdmission("nowhere", Admission.NONE)).isInstanceOf(IllegalArgumentException.class);
    }

    /** @return whether a new connection echoes; false for one reset as it was accepted */
    private boolean servedAtOnce(int port) throws IOException {
        try {
            return echoes(connect(port));
        }
        catch (SocketException ex) {
            return false;
        }
    }

    private boolean echoesFrom(String source, int port) throws IOException {
        try {
            return echoes(connectFrom(source, port));
        }
        catch (SocketException ex) {
            return false;
        }
    }

    private Socket connectFrom(String source, int port) throws IOException {
        Socket peer = new Socket();
        this.peers.add(peer);
        peer.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
        peer.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
        peer.setSoTimeout(5000);
        return peer;
    }

    private SocketServer start() {
        ServerObserver observer = new ServerObserver() {

            @Override
            public ListenerObserver listener(String listener, Protocol protocol, ActiveCounts active) {
                return ListenerObserver.NONE;
            }

            @Override
            public void listenerRemoved(String listener) {
                RuntimeListenersTest.this.removed.add(listener);
            }

            @Override
            public void clientRemoved(String client) {
                RuntimeListenersTest.this.removed.add("client " + client);
            }
        };
        return this.fixture.start(List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)), observer,
                ServerFixture.tcp("first").handler(new EchoHandler()).maxConnections(4).build());
    }

    private Socket connect(int port) throws IOException {
        Socket peer = new Socket();
        this.peers.add(peer);
        peer.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
        peer.setSoTimeout(5000);
        return peer;
    }

    /** Connects and sends, for a port where nothing should listen: a refused connect or a reset throws. */
    private void connectRefusedOrReset(int port) throws IOException {
        Socket peer = connect(port);
        peer.getOutputStream().write('x');
        if (peer.getInputStream().read() < 0) {
            throw new IOException("closed at once");
        }
    }

    private static boolean echoes(Socket peer) throws IOException {
        peer.getOutputStream().write('x');
        return peer.getInputStream().read() == 'x';
    }

    private static boolean endOf(InputStream in) throws IOException {
        try {
            return in.read() == -1;
        }
        catch (SocketException ex) {
            return false;
        }
    }

    /** Answers after 300 ms on the handler executor, as a handler waiting on something else would. */
    private static final class SlowAnswer implements ConnectionHandler {

        volatile boolean asked;

        @Override
        public void onData(Connection connection, ByteBuffer data) throws InterruptedException {
            this.asked = true;
            Thread.sleep(300);
            connection.write("answer\n".getBytes(StandardCharsets.US_ASCII));
        }
    }
}
