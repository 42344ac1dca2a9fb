package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sockstate.port.Backend;
import dev.sockstate.port.DatagramBatch;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.OutgoingDatagrams;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.winsock.WinsockEmulator;
import dev.sockstate.server.Coalescing;
import dev.sockstate.server.DatagramHandler;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Setting;
import dev.sockstate.server.WorkerGroupSettings;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Segmented sends and coalesced receives: a handler sends a bulk reply as datagrams of one size (cut by
 * the system with UDP_SEGMENT on epoll, UDP_SEND_MSG_SIZE on winsock, one a call elsewhere), and a
 * listener that asks for coalescing receives a sender's segments as one coalesced datagram (UDP_GRO on
 * epoll, UDP_RECV_MAX_COALESCED_SIZE on winsock), handed over segment by segment or whole. Whatever the
 * backend, the peer and the handler see the same datagrams in the same order.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DatagramSegmentsTest {

    private final ServerFixture fixture = new ServerFixture();

    private final DatagramBatchTest.Recording observer = new DatagramBatchTest.Recording();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    private static NativeSockets sockets() {
        return ServerFixture.backend().sockets();
    }

    /**
     * @return whether the backend under test has the system cut and coalesce datagrams over loopback: Linux's
     * does, and so does the Windows emulator on it; Windows' own loopback is not known to coalesce
     */
    private static boolean offloads() {
        boolean windows = ServerFixture.backend().name().equals("winsock") && !WinsockEmulator.isBound();
        return !windows && sockets().unsupported(NativeSocketOption.SEGMENT_SIZE, 1) == null
                && sockets().unsupported(NativeSocketOption.RECEIVE_COALESCED, 1) == null;
    }

    /** The 1,500 bytes sent whole after the segments: longer than a segment, which it would be cut to were the size left set. */
    private static final String AFTER = "z".repeat(1500);

    /** Answers "bulk" with "first", then 2,500 bytes as datagrams of 1,000 (a's, b's, then 500 c's), then {@link #AFTER} whole. */
    private static final DatagramHandler BULK = (endpoint, data, sender) -> {
        endpoint.send(ByteBuffer.wrap("first".getBytes(StandardCharsets.US_ASCII)), sender);
        ByteBuffer bulk = ByteBuffer.allocate(2500);
        for (int i = 0; i < 2500; i++) {
            bulk.put((byte) ('a' + i / 1000));
        }
        assertThat(endpoint.sendSegments(bulk.flip(), 1000, sender)).isTrue();
        assertThat(bulk.hasRemaining()).as("consumed").isFalse();
        endpoint.send(ByteBuffer.wrap(AFTER.getBytes(StandardCharsets.US_ASCII)), sender);
    };

    @Test
    void aHandlersSegmentsReachThePeerInOrderAsDatagramsOfTheSegmentSize() throws Exception {
        InetSocketAddress target = start(ServerFixture.udp("udp").handler(BULK));
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            client.setSoTimeout(5000);
            send(client, target, "bulk");
            for (String expected : List.of("first", "a".repeat(1000), "b".repeat(1000), "c".repeat(500), AFTER)) {
                assertThat(receive(client)).isEqualTo(expected);
            }
        }
        ServerFixture.await(() -> this.observer.sent.get() == 5, "five datagrams counted as sent");
    }

    @Test
    void whereTheSystemCutsTheSegmentsAPeerThatCoalescesReceivesThemAsOneBlock() throws Exception {
        assumeTrue(offloads(), "the backend has the system cut and coalesce datagrams");
        InetSocketAddress target = start(ServerFixture.udp("udp").handler(BULK));
        NativeSockets sockets = sockets();
        long client = sockets.open(Protocol.UDP, StandardProtocolFamily.INET);
        try {
            sockets.setOption(client, NativeSocketOption.RECEIVE_COALESCED, 1);
            sockets.bind(client, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            sockets.sendTo(client, ByteBuffer.wrap("bulk".getBytes(StandardCharsets.US_ASCII)), PeerAddress.of(target));
            DatagramBatch batch = sockets.datagramBatch(4, 64 * 1024, true);
            List<String> received = new CopyOnWriteArrayList<>();
            List<Integer> segmentSizes = new CopyOnWriteArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (received.size() < 3 && System.nanoTime() < deadline) {
                int count = sockets.receiveBatch(client, batch);
                if (count == NativeSockets.WOULD_BLOCK) {
                    Thread.sleep(1);
                    continue;
                }
                for (int i = 0; i < count; i++) {
                    received.add(StandardCharsets.US_ASCII.decode(batch.datagram(i)).toString());
                    segmentSizes.add(batch.segmentSize(i));
                }
            }
            assertThat(received).as("the reply before, one coalesced datagram cut by the sending system, the reply after whole")
                    .containsExactly("first", "a".repeat(1000) + "b".repeat(1000) + "c".repeat(500), AFTER);
            assertThat(segmentSizes).containsExactly(0, 1000, 0);
        }
        finally {
            sockets.close(client);
        }
    }

    @Test
    void segmentsTheSystemRefusesToCutGoASegmentACallAndArriveAllTheSame() throws Exception {
        assumeTrue(sockets().unsupported(NativeSocketOption.SEGMENT_SIZE, 1) == null, "the backend has the system cut datagrams");
        AtomicInteger refused = new AtomicInteger();
        // As a route whose MTU is below the segment size refuses them: EINVAL for a batch that asks to cut.
        Backend refusing = AcceptPerWorkerFailureTest.withSockets(ServerFixture.backend(), (real, method, arguments) -> {
            if (method.equals("sendBatch") && ((OutgoingDatagrams) arguments[1]).segmentSize((Integer) arguments[2]) > 0) {
                refused.incrementAndGet();
                throw new NativeIoException("sendBatch", NativeError.INVALID_ARGUMENT, 22, "Invalid argument");
            }
        });
        SocketServer server = this.fixture.start(refusing, List.of(WorkerGroupSettings.of("default", 1)), this.observer,
                ServerFixture.udp("udp").handler(BULK).build());
        InetSocketAddress target = (InetSocketAddress) server.listener("udp").address();
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            client.setSoTimeout(5000);
            for (int round = 0; round < 2; round++) {
                send(client, target, "bulk");
                for (String expected : List.of("first", "a".repeat(1000), "b".repeat(1000), "c".repeat(500), AFTER)) {
                    assertThat(receive(client)).isEqualTo(expected);
                }
            }
        }
        assertThat(refused.get()).as("segmented calls refused: one a bulk reply, the rest of it sent a segment a call").isEqualTo(2);
        ServerFixture.await(() -> this.observer.sent.get() == 10, "ten datagrams counted as sent");
    }

    @Test
    void aListenerThatCoalescesHandsEachSegmentOverAloneInOrder() throws Exception {
        List<String> handled = new CopyOnWriteArrayList<>();
        List<Integer> segmentSizes = new CopyOnWriteArrayList<>();
        InetSocketAddress target = start(ServerFixture.udp("udp").coalescing(Coalescing.SEGMENTS).handler((endpoint, data, sender) -> {
            handled.add(StandardCharsets.US_ASCII.decode(data).toString());
            segmentSizes.add(endpoint.segmentSize());
        }));
        sendTenSegments(target);
        ServerFixture.await(() -> handled.size() == 10, "ten datagrams handled");
        assertThat(handled).containsExactly("0".repeat(100), "1".repeat(100), "2".repeat(100), "3".repeat(100), "4".repeat(100),
                "5".repeat(100), "6".repeat(100), "7".repeat(100), "8".repeat(100), "9".repeat(50));
        assertThat(segmentSizes).as("each handed over alone").containsOnly(0);
        assertThat(this.observer.datagrams.get()).as("datagrams counted").isEqualTo(10);
        if (offloads()) {
            assertThat(this.observer.calls.get()).as("receive calls: the coalesced datagram in one").isOne();
        }
    }

    @Test
    void aListenerThatTakesCoalescedDatagramsWholeHandsThemOverWithTheirSegmentSize() throws Exception {
        List<Integer> lengths = new CopyOnWriteArrayList<>();
        List<Integer> segmentSizes = new CopyOnWriteArrayList<>();
        InetSocketAddress target = start(ServerFixture.udp("udp").coalescing(Coalescing.WHOLE).handler((endpoint, data, sender) -> {
            lengths.add(data.remaining());
            segmentSizes.add(endpoint.segmentSize());
        }));
        sendTenSegments(target);
        if (offloads()) {
            ServerFixture.await(() -> lengths.size() == 1, "the coalesced datagram handled");
            assertThat(lengths).containsExactly(950);
            assertThat(segmentSizes).containsExactly(100);
            assertThat(this.observer.datagrams.get()).as("datagrams counted: its segments").isEqualTo(10);
        }
        else {
            ServerFixture.await(() -> lengths.size() == 10, "ten datagrams handled");
            assertThat(segmentSizes).as("nothing coalesced").containsOnly(0);
        }
    }

    @Test
    void wholeCoalescedDatagramsAreRefusedWithAHandlerExecutorAndCoalescingOnTcp() {
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ServerFixture.udp("udp").coalescing(Coalescing.WHOLE).handlerExecutor(Executors.newSingleThreadExecutor())
                        .handler((endpoint, data, sender) -> { }).build())
                .satisfies((ex) -> assertThat(ex.setting()).isEqualTo(Setting.COALESCING)).withMessageContaining("handler executor");
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ListenerSettings.tcp("tcp").coalescing(Coalescing.SEGMENTS).handler((connection, data) -> { }).build())
                .satisfies((ex) -> assertThat(ex.setting()).isEqualTo(Setting.COALESCING));
    }

    @Test
    void aSegmentSizeOutOfRangeIsRefused() throws Exception {
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        InetSocketAddress target = start(ServerFixture.udp("udp").handler((endpoint, data, sender) -> {
            try {
                endpoint.sendSegments(ByteBuffer.allocate(10), 0, sender);
            }
            catch (IllegalArgumentException ex) {
                failures.add(ex);
            }
        }));
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            send(client, target, "x");
            ServerFixture.await(() -> failures.size() == 1, "the refusal");
        }
        assertThat(failures.get(0)).hasMessageContaining("1 to 65000 bytes");
    }

    /** Sends 950 bytes as ten segments of 100 ('0's ... fifty '9's): one call the system cuts where it can, ten datagrams elsewhere. */
    private static void sendTenSegments(InetSocketAddress target) throws Exception {
        byte[] data = new byte[950];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) ('0' + i / 100);
        }
        NativeSockets sockets = sockets();
        if (offloads()) {
            long sender = sockets.open(Protocol.UDP, StandardProtocolFamily.INET);
            try {
                sockets.setOption(sender, NativeSocketOption.SEGMENT_SIZE, 100);
                assertThat(sockets.sendTo(sender, ByteBuffer.wrap(data), PeerAddress.of(target))).isEqualTo(950);
            }
            finally {
                sockets.close(sender);
            }
            return;
        }
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            for (int from = 0; from < data.length; from += 100) {
                client.send(new DatagramPacket(data, from, Math.min(100, data.length - from), target));
            }
        }
    }

    private InetSocketAddress start(ListenerSettings.Builder listener) {
        SocketServer server = this.fixture.start(List.of(WorkerGroupSettings.of("default", 1)), this.observer, listener.build());
        return (InetSocketAddress) server.listener("udp").address();
    }

    private static void send(DatagramSocket client, InetSocketAddress target, String text) throws Exception {
        byte[] payload = text.getBytes(StandardCharsets.US_ASCII);
        client.send(new DatagramPacket(payload, payload.length, target));
    }

    private static String receive(DatagramSocket client) throws Exception {
        DatagramPacket packet = new DatagramPacket(new byte[4096], 4096);
        client.receive(packet);
        return new String(packet.getData(), 0, packet.getLength(), StandardCharsets.US_ASCII);
    }
}
