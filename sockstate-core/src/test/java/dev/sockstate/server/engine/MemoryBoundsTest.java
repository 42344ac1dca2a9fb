package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Protocol;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.tls.TlsSupport;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.observer.ServerObserver.ActiveCounts;
import java.io.OutputStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The memory a TLS listener with framing holds stays within its bounds, as its gauges show and the
 * JVM's direct memory confirms, under what an attacker would send: readers that never read, a flood
 * of connections that each leave a frame unfinished, and a flood of garbage. The queued writes stay
 * under each connection's limit (reading pauses), the unfinished frames under the listener's budget,
 * and the pooled buffers lent to the connections' turns under what the turns running at once borrow,
 * whatever the number of connections.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MemoryBoundsTest {

    private static final int REPLY = 64 * 1024;

    private static final long MAX_PENDING = 64 * 1024;

    private static final int MAX_FRAME = 16 * 1024;

    private static final long MAX_UNFINISHED = 256 * 1024;

    private static final int WORKERS = 2;

    /**
     * The most the listener's pools make with no handler executor: a turn borrows at most a record, a
     * plaintext and a framed-write buffer at once (64 KiB each), and only the workers run turns.
     */
    private static final long POOLED_BOUND = WORKERS * 3L * TlsSupport.ROOM;

    /** Direct memory beyond the listener's pools: the writes' gathering buffers (one per worker's turn, 64 KiB) and a margin. */
    private static final long DIRECT_BEYOND_POOLS = WORKERS * 64L * 1024 + 1024 * 1024;

    private final TlsFixture tls;

    private final AtomicReference<ActiveCounts> counts = new AtomicReference<>();

    private final BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter((pool) -> pool.getName().equals("direct")).findFirst().orElseThrow();

    MemoryBoundsTest() throws Exception {
        this.tls = new TlsFixture();
    }

    @AfterEach
    void stop() throws Exception {
        this.tls.close();
    }

    @Test
    void readersThatNeverReadAreHeldAtTheirQueuesLimitAndThePooledBuffersAtTheTurnsAtOnce() throws Exception {
        SocketServer server = start();
        long before = this.direct.getMemoryUsed();
        int readers = 20;
        SSLContext context = TlsCertificates.get().context(null);
        // Kept reachable: a socket dropped would be closed when collected.
        List<SSLSocket> clients = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            // A small window, set before connecting: the kernel's buffers take little of what the server writes.
            Socket plain = this.tls.plain(server, 4096);
            SSLSocket client = (SSLSocket) context.getSocketFactory().createSocket(plain, "localhost", plain.getPort(), true);
            client.setEnabledProtocols(new String[] {"TLSv1.3"});
            // A hundred requests for 64 KiB each, never read.
            client.getOutputStream().write("big\n".repeat(100).getBytes(StandardCharsets.US_ASCII));
            client.getOutputStream().flush();
            clients.add(client);
        }
        ServerFixture.await(() -> counts().pendingWriteBytes() > readers * MAX_PENDING, "every reader's queue over its limit");

        for (int sample = 0; sample < 20; sample++) {
            assertHeldWithinBounds(readers, before);
            Thread.sleep(50);
        }
        assertThat(server.listener("tls").activeConnections()).as("readers paused, none aborted").isEqualTo(clients.size());
        assertThat(counts().pooledBufferBytes()).as("pooled buffers the replies were framed and sealed in").isPositive();
    }

    @Test
    void aFloodOfConnectionsThatEachLeaveAFrameUnfinishedIsHeldAtTheListenersBudget() throws Exception {
        SocketServer server = start();
        long before = this.direct.getMemoryUsed();
        int flood = 100;
        byte[] partial = "x".repeat(MAX_FRAME - 1).getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < flood; i++) {
            SSLSocket client = this.tls.client(server, null, "TLSv1.3");
            client.getOutputStream().write(partial);
            client.getOutputStream().flush();
        }
        ServerFixture.await(() -> counts().unfinishedFrameBytes() > MAX_UNFINISHED / 2, "unfinished frames held");
        for (int sample = 0; sample < 20; sample++) {
            assertHeldWithinBounds(flood, before);
            Thread.sleep(50);
        }
    }

    @Test
    void aFloodOfGarbageIsClosedAndLeavesNothingHeld() throws Exception {
        SocketServer server = start();
        long before = this.direct.getMemoryUsed();
        int flood = 200;
        Random random = new Random(42);
        byte[] garbage = new byte[16 * 1024];
        for (int i = 0; i < flood; i++) {
            random.nextBytes(garbage);
            Socket client = this.tls.plain(server);
            OutputStream out = client.getOutputStream();
            try {
                out.write(garbage);
            }
            catch (java.io.IOException ex) {
                // closed already: what garbage earns
            }
            if (i % 20 == 0) {
                assertHeldWithinBounds(flood, before);
            }
        }
        ServerFixture.await(() -> server.listener("tls").activeConnections() == 0, "every garbage connection closed");
        assertThat(counts().pendingWriteBytes()).isZero();
        assertThat(counts().unfinishedFrameBytes()).isZero();
        assertHeldWithinBounds(flood, before);
    }

    /** The gauges against the bounds, and the direct memory added since the start against the pools' bound. */
    private void assertHeldWithinBounds(int connections, long directBefore) {
        ActiveCounts held = counts();
        // Per connection: its limit, and the reply it was writing when it passed it (a record's overhead more).
        assertThat(held.pendingWriteBytes()).as("queued writes").isLessThanOrEqualTo(connections * (MAX_PENDING + REPLY + 1024));
        assertThat(held.unfinishedFrameBytes()).as("unfinished frames").isLessThanOrEqualTo(MAX_UNFINISHED);
        long pooled = held.pooledBufferBytes();
        assertThat(pooled).as("pooled buffers").isLessThanOrEqualTo(POOLED_BOUND);
        // Nothing per connection: a buffer of 64 KiB kept by each would add several MiB.
        assertThat(this.direct.getMemoryUsed() - directBefore).as("direct memory added, %d bytes of it pooled", pooled)
                .isLessThanOrEqualTo(pooled + DIRECT_BEYOND_POOLS);
    }

    private ActiveCounts counts() {
        return this.counts.get();
    }

    /** A TLS listener "tls" with line framing, whose handler answers "big" with 64 KiB and echoes any other line. */
    private SocketServer start() throws Exception {
        ConnectionHandler handler = (connection, data) -> {
            if (StandardCharsets.US_ASCII.decode(data.duplicate()).toString().equals("big")) {
                connection.write(ByteBuffer.allocate(REPLY));
            }
            else {
                connection.write(data);
            }
        };
        ServerObserver observer = new ServerObserver() {
            @Override
            public ListenerObserver listener(String listener, Protocol protocol, ActiveCounts active) {
                MemoryBoundsTest.this.counts.set(active);
                return ListenerObserver.NONE;
            }
        };
        ListenerSettings listener = ServerFixture.tcp("tls").tls(this.tls.serverTls()).handler(handler)
                .framing(Framing.line().withMaxFrameSize(MAX_FRAME).withMaxUnfinishedBytes(MAX_UNFINISHED))
                .maxPendingWriteBytes(MAX_PENDING).build();
        return this.tls.servers.start(List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, WORKERS)), observer, listener);
    }
}
