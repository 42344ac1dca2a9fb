package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.engine.tls.TlsStage;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What an idle TLS connection keeps once its handshake is done: no buffer of its stage's own (the
 * records were unwrapped into buffers lent for each call), and so no direct memory that grows with
 * the connections.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TlsIdleMemoryTest {

    private static final int CONNECTIONS = 200;

    /** Direct memory 200 idle connections may add: a few lent buffers (64 KiB each) beyond the warm-up's, not one per connection. */
    private static final long BOUND = 1024 * 1024;

    private final TlsFixture fixture;

    private final BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter((pool) -> pool.getName().equals("direct")).findFirst().orElseThrow();

    TlsIdleMemoryTest() throws Exception {
        this.fixture = new TlsFixture();
    }

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    @Test
    void twoHundredIdleTlsConnectionsHoldNoBufferOfTheirOwnAndAddLittleDirectMemory() throws Exception {
        TlsFixture.Recording handler = new TlsFixture.Recording();
        SocketServer server = this.fixture.start(this.fixture.serverTls(), handler);
        try (SSLSocket warmUp = this.fixture.client(server, null, "TLSv1.3")) {
            assertThat(TlsFixture.echo(warmUp, "warm-up")).isEqualTo("warm-up");
        }
        ServerFixture.await(() -> server.listener("tls").activeConnections() == 0, "the warm-up connection closed");
        long before = this.direct.getMemoryUsed();
        List<SSLSocket> clients = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            SSLSocket client = this.fixture.client(server, null, (i % 2 == 0) ? "TLSv1.3" : "TLSv1.2");
            // Half a record's worth of a message each way, so the lent buffers were used by every connection.
            assertThat(TlsFixture.echo(client, "connection " + i + " ".repeat(8000))).startsWith("connection " + i);
            clients.add(client);
        }
        ServerFixture.await(() -> server.listener("tls").activeConnections() == CONNECTIONS, "all connections open");
        long added = this.direct.getMemoryUsed() - before;
        List<Connection> open = new ArrayList<>(handler.connections).subList(1, CONNECTIONS + 1);
        assertThat(open).allSatisfy((connection) -> {
            TlsStage stage = (TlsStage) ((TcpConnection) connection).firstStage();
            assertThat(stage.holdsBuffers()).as("an idle TLS connection's stage holds no buffer").isFalse();
            assertThat(connection.tlsSession()).isNotNull();
        });
        assertThat(added).as("direct memory added by %d idle TLS connections", CONNECTIONS).isLessThan(BOUND);
        for (SSLSocket client : clients) {
            client.close();
        }
        ServerFixture.await(() -> server.listener("tls").activeConnections() == 0, "all connections closed");
    }
}
