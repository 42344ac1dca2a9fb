package dev.sockstate.server.engine;

import static dev.sockstate.server.engine.ServerFixture.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.SocketOptions.KeepAlive;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer behind a network that is cut, on the real backend: a client in a network namespace of the
 * test's own, joined to the server's by a veth pair whose far end is taken down, so that no FIN and no
 * reset ever arrives. The keep-alive (or TCP_USER_TIMEOUT) the listener sets finds it within its timing;
 * a listener without either still holds the connection. Needs root and iproute2 ({@code ip}) for the
 * namespace ({@link VethNamespace}), and {@code socat} as the client: skipped without them, failed in CI,
 * which has them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DeadPeerTest {

    private final ServerFixture fixture = new ServerFixture();

    private VethNamespace network;

    private final ConcurrentLinkedQueue<Ended> ended = new ConcurrentLinkedQueue<>();

    private final ConcurrentLinkedQueue<Connection> opened = new ConcurrentLinkedQueue<>();

    @BeforeEach
    void makeTheNetwork() throws Exception {
        UnixTools.require("socat");
        this.network = VethNamespace.make("dead", 251, false);
    }

    @AfterEach
    void removeTheNetwork() throws Exception {
        this.fixture.close();
        if (this.network != null) {
            this.network.close();
        }
    }

    @Test
    void aKeepAliveFindsAPeerBehindACutNetworkWithinItsTimingWhileAListenerWithoutOneStillHoldsItsConnection() throws Exception {
        ListenerSettings probing = listener("probing").keepAlive(KeepAlive.of(Duration.ofSeconds(1), Duration.ofSeconds(1), 2)).build();
        ListenerSettings silent = listener("silent").build();
        SocketServer server = this.fixture.start(1, probing, silent);
        connectFromTheNamespace(server.listener("probing").portNumber());
        connectFromTheNamespace(server.listener("silent").portNumber());
        await(() -> this.opened.size() == 2, "both peers to connect");
        long cut = cutTheNetwork();
        await(() -> !this.ended.isEmpty(), "the probing listener to find its peer gone");
        Ended first = this.ended.peek();
        long foundMillis = TimeUnit.NANOSECONDS.toMillis(first.at - cut);
        System.out.println("A keep-alive of 1 s idle, 1 s interval and 2 probes found the dead peer " + foundMillis + " ms after the cut");
        assertThat(first.listener).isEqualTo("probing");
        assertThat(foundMillis).as("idle + count x interval is 3 s").isLessThan(8000);
        assertThat(first.error).as("why it ended").isNotNull();
        Thread.sleep(2000);
        assertThat(this.ended).as("what ended, the silent listener's connection still open").hasSize(1);
    }

    @Test
    void aUserTimeoutEndsAConnectionWhoseDataThePeerBehindACutNetworkNeverAcknowledges() throws Exception {
        assumeTrue(ServerFixture.backend().sockets().unsupported(NativeSocketOption.USER_TIMEOUT, 2000) == null,
                "the backend has TCP_USER_TIMEOUT");
        ListenerSettings bounded = listener("bounded").userTimeout(Duration.ofSeconds(2)).build();
        ListenerSettings unbounded = listener("unbounded").build();
        SocketServer server = this.fixture.start(1, bounded, unbounded);
        connectFromTheNamespace(server.listener("bounded").portNumber());
        connectFromTheNamespace(server.listener("unbounded").portNumber());
        await(() -> this.opened.size() == 2, "both peers to connect");
        long cut = cutTheNetwork();
        for (Connection connection : this.opened) {
            connection.send("unacknowledged\n");
        }
        await(() -> !this.ended.isEmpty(), "the bounded listener to give up on its peer");
        Ended first = this.ended.peek();
        long foundMillis = TimeUnit.NANOSECONDS.toMillis(first.at - cut);
        System.out.println("A user timeout of 2 s ended the connection " + foundMillis + " ms after the cut");
        assertThat(first.listener).isEqualTo("bounded");
        assertThat(foundMillis).as("the user timeout is 2 s").isLessThan(8000);
        Thread.sleep(2000);
        assertThat(this.ended).as("what ended, the unbounded listener's connection still retransmitting").hasSize(1);
    }

    private ListenerSettings.Builder listener(String name) throws IOException {
        ConnectionHandler handler = new ConnectionHandler() {

            @Override
            public void onOpen(Connection connection) {
                DeadPeerTest.this.opened.add(connection);
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                connection.write(data);
            }

            @Override
            public void onError(Connection connection, Throwable error) {
                DeadPeerTest.this.ended.add(new Ended(name, System.nanoTime(), error));
            }

            @Override
            public void onClose(Connection connection) {
                if (DeadPeerTest.this.ended.stream().noneMatch((end) -> end.listener.equals(name))) {
                    DeadPeerTest.this.ended.add(new Ended(name, System.nanoTime(), null));
                }
            }
        };
        return ListenerSettings.tcp(name).address(InetAddress.getByName(this.network.hostAddress())).handler(handler);
    }

    /** Starts socat in the namespace, connected to the port, its input held open so that it never closes. */
    private void connectFromTheNamespace(int port) throws Exception {
        this.network.startHeld("socat", "-", "TCP:" + this.network.hostAddress() + ":" + port);
    }

    /** Takes the peer's end of the link down: nothing it sent or would send arrives any more. @return when */
    private long cutTheNetwork() throws Exception {
        this.network.inside("ip", "link", "set", this.network.peerInterface(), "down");
        return System.nanoTime();
    }

    /** A connection that ended: its listener, when, and the error it ended with ({@code null} for none). */
    private record Ended(String listener, long at, Throwable error) {
    }
}
