package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backend;
import dev.sockstate.port.winsock.WinsockBackend;
import dev.sockstate.port.winsock.WinsockEmulator;
import dev.sockstate.port.winsock.WinsockFreshBackend;
import dev.sockstate.server.Coalescing;
import dev.sockstate.server.DatagramHandler;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.observer.ServerObserver;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A UDP listener on a Windows build older than UDP segmentation offload and receive coalescing
 * (Windows 10 2004), on the emulator made such a build: it asks for both, is refused, says so once a
 * listener in the log, and serves the same datagrams, without making the send batch that only a system
 * cutting segments uses. (On a build that has them, the server's suite on the winsock backend runs
 * {@link DatagramSegmentsTest}, where the system cuts and coalesces.)
 */
@EnabledIfSystemProperty(named = WinsockBackend.LIBRARY_PROPERTY, matches = ".+", disabledReason = "the Winsock emulator is built on Linux only")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WindowsDatagramOffloadTest {

    private final ServerFixture fixture = new ServerFixture();

    private final WinsockEmulator emulator = WinsockEmulator.load();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
        this.emulator.emu_reset();
    }

    /** Answers with 2,500 bytes as datagrams of 1,000: a's, b's, then 500 c's. */
    private static final DatagramHandler BULK = (endpoint, data, sender) -> {
        ByteBuffer bulk = ByteBuffer.allocate(2500);
        for (int i = 0; i < 2500; i++) {
            bulk.put((byte) ('a' + i / 1000));
        }
        endpoint.sendSegments(bulk.flip(), 1000, sender);
    };

    @Test
    void aBuildWithoutSegmentationSendsSegmentsWithoutTheSendBatchOnlyASystemThatCutsThemUses() throws Exception {
        this.emulator.emu_set_udp_offload(0);
        AtomicInteger batchesMade = new AtomicInteger();
        Backend counting = AcceptPerWorkerFailureTest.withSockets(new WinsockFreshBackend(), (real, method, arguments) -> {
            if (method.equals("outgoingDatagrams")) {
                batchesMade.incrementAndGet();
            }
        });
        SocketServer server = this.fixture.start(counting, List.of(WorkerGroupSettings.of("default", 1)), ServerObserver.NONE,
                ServerFixture.udp("udp").handler(BULK).build());
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            client.setSoTimeout(5000);
            client.send(new DatagramPacket(new byte[] {'?'}, 1, server.listener("udp").address()));
            for (String expected : List.of("a".repeat(1000), "b".repeat(1000), "c".repeat(500))) {
                DatagramPacket packet = new DatagramPacket(new byte[4096], 4096);
                client.receive(packet);
                assertThat(new String(packet.getData(), 0, packet.getLength(), StandardCharsets.US_ASCII)).isEqualTo(expected);
            }
        }
        // Its 64 KB of native memory (and the addresses of 64 datagrams) would be held as long as the listener.
        assertThat(batchesMade.get()).as("send batches made").isZero();
    }

    @Test
    void aBuildWithoutSegmentationOrCoalescingServesTheSameDatagramsAndSaysSoOnce() throws Exception {
        this.emulator.emu_set_udp_offload(0);
        try (LogLines binder = new LogLines(ListenerBinder.class); LogLines socket = new LogLines(UdpSocket.class)) {
            SocketServer server = this.fixture.start(new WinsockFreshBackend(), List.of(WorkerGroupSettings.of("default", 1)),
                    ServerObserver.NONE, ServerFixture.udp("udp").coalescing(Coalescing.SEGMENTS).handler(BULK).build());
            InetSocketAddress target = (InetSocketAddress) server.listener("udp").address();
            try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
                client.setSoTimeout(5000);
                for (int round = 0; round < 2; round++) {
                    client.send(new DatagramPacket(new byte[] {'?'}, 1, target));
                    for (String expected : List.of("a".repeat(1000), "b".repeat(1000), "c".repeat(500))) {
                        DatagramPacket packet = new DatagramPacket(new byte[4096], 4096);
                        client.receive(packet);
                        assertThat(new String(packet.getData(), 0, packet.getLength(), StandardCharsets.US_ASCII)).isEqualTo(expected);
                    }
                }
            }
            assertThat(binder.lines()).filteredOn((line) -> line.contains("coalesced")).singleElement().asString()
                    .contains("'udp'").contains("UDP_RECV_MAX_COALESCED_SIZE").contains("each datagram is received alone");
            assertThat(socket.lines()).filteredOn((line) -> line.contains("segment")).singleElement().asString()
                    .contains("'udp'").contains("UDP_SEND_MSG_SIZE").contains("a call of its own");
        }
    }
}
