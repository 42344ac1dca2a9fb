package dev.sockstate.server.engine;

import static dev.sockstate.server.engine.ServerFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.client.Relay;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.observer.ServerObserver;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A TCP proxy on the real backend: a listener whose connections a {@link Relay} ties to connections
 * of a client to an echo backend. What the proxy holds stays bounded when the peer does not read,
 * and everything arrives once it does.
 */
class RelayTest {

    private static final long LIMIT = 256 * 1024;

    private static final long TOTAL = 48L * 1024 * 1024;

    private static final int RECEIVE_BUFFER = 64 * 1024;

    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws IOException {
        this.fixture.close();
    }

    @Test
    void aPeerThatDoesNotReadPausesTheBackendSideAndTheProxyHoldsAboutItsLimit() throws Exception {
        SocketServer proxy = startProxy();
        Socket peer = this.fixture.connectWithSmallWindow(proxy, "front");
        peer.setSendBufferSize(RECEIVE_BUFFER);
        AtomicLong written = new AtomicLong();
        Thread writer = new Thread(() -> {
            try {
                OutputStream out = peer.getOutputStream();
                byte[] chunk = new byte[64 * 1024];
                while (written.get() < TOTAL) {
                    for (int i = 0; i < chunk.length; i++) {
                        chunk[i] = (byte) ((written.get() + i) % 251);
                    }
                    out.write(chunk);
                    written.addAndGet(chunk.length);
                }
            }
            catch (IOException ex) {
                // The test fails on what it read.
            }
        }, "relay-test-writer");
        writer.start();
        long mostHeld = 0;
        long lastWritten = -1;
        long deadline = System.nanoTime() + 10_000_000_000L;
        // Until the writer stalls: every socket buffer on the way is full, and the proxy holds what it holds.
        while (System.nanoTime() < deadline && written.get() != lastWritten) {
            lastWritten = written.get();
            for (int i = 0; i < 50; i++) {
                mostHeld = Math.max(mostHeld, held(proxy));
                Thread.sleep(4);
            }
        }
        assertThat(written.get()).as("bytes the peer wrote before the chain stalled").isLessThan(TOTAL);
        assertThat(mostHeld).as("bytes queued in the proxy while its peer did not read").isLessThanOrEqualTo(4 * LIMIT);
        InputStream in = peer.getInputStream();
        byte[] chunk = new byte[64 * 1024];
        long read = 0;
        while (read < TOTAL) {
            int n = in.read(chunk);
            assertThat(n).as("the stream ended after " + read + " bytes").isPositive();
            for (int i = 0; i < n; i++) {
                if (chunk[i] != (byte) ((read + i) % 251)) {
                    throw new AssertionError("byte " + (read + i) + " came back wrong");
                }
            }
            read += n;
        }
        writer.join(10_000);
        assertThat(read).isEqualTo(TOTAL);
    }

    @Test
    void aFinOnOneSideIsPassedOnAndTheRelayCloses() throws Exception {
        SocketServer proxy = startProxy();
        Socket peer = this.fixture.connect(proxy, "front");
        peer.getOutputStream().write("hello".getBytes());
        peer.shutdownOutput();
        byte[] back = peer.getInputStream().readAllBytes();
        assertThat(new String(back)).isEqualTo("hello");
        await(() -> proxy.connections().isEmpty(), "both sides of the relay to close");
    }

    /** @return a proxy server: listener "front" relayed to client "back", which connects to an echo backend */
    private SocketServer startProxy() {
        // Every receive buffer on the way is fixed and small: autotuned, each could grow to the host's
        // tcp_rmem maximum (32 MB here), and the chain then held the whole stream without a stall.
        SocketServer backend = this.fixture.start(1, ServerFixture.tcp("echo").handler(new EchoHandler())
                .receiveBufferSize(RECEIVE_BUFFER).build());
        AtomicReference<SocketClient> client = new AtomicReference<>();
        ConnectionHandler front = new ConnectionHandler() {

            @Override
            public void onOpen(Connection connection) {
                connection.pauseReading();
                client.get().open().whenComplete((back, failure) -> {
                    if (failure != null) {
                        connection.close();
                        return;
                    }
                    Relay.between(connection, back);
                    connection.resumeReading();
                });
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                Relay.handler().onData(connection, data);
            }

            @Override
            public void onWritable(Connection connection) throws Exception {
                Relay.handler().onWritable(connection);
            }

            @Override
            public void onHangup(Connection connection) throws Exception {
                Relay.handler().onHangup(connection);
            }

            @Override
            public void onClose(Connection connection) {
                Relay.handler().onClose(connection);
            }
        };
        ClientSettings back = ClientSettings.builder("back").address("127.0.0.1", backend.listener("echo").portNumber())
                .poolSize(0).handler(Relay.handler()).maxPendingWriteBytes(LIMIT).receiveBufferSize(RECEIVE_BUFFER).build();
        ListenerSettings listener = ServerFixture.tcp("front").handler(front).maxPendingWriteBytes(LIMIT)
                .receiveBufferSize(RECEIVE_BUFFER).build();
        SocketServer proxy = this.fixture.startWithClients(List.of(back), ServerObserver.NONE, listener);
        client.set(proxy.client("back"));
        return proxy;
    }

    /** @return the bytes the proxy's connections queue now */
    private static long held(SocketServer proxy) {
        return proxy.connections().stream().mapToLong(TcpConnection::pendingWriteBytes).sum();
    }
}
