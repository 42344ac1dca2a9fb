package dev.sockstate.port.winsock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.port.DatagramBatch;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.OutgoingDatagrams;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.Protocol;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/** What the winsock backend does beyond the shared contracts, on the emulator of the Windows API. */
@EnabledIfSystemProperty(named = WinsockBackend.LIBRARY_PROPERTY, matches = ".+",
        disabledReason = "the Winsock emulator is built on Linux only")
class WinsockEmulatedSpecificsTest {

    private final WinsockBackend backend = new WinsockBackend();

    @Test
    void aPostedMessageCarriesAnyKeyAndPayloadThroughTheCompletionPort() throws Exception {
        try (NotificationPort port = this.backend.openPort()) {
            port.post(-5, Integer.MIN_VALUE);
            port.post(Long.MAX_VALUE, 0);
            NotificationBatch batch = new NotificationBatch(4);
            assertThat(port.dequeue(batch, 1000)).isEqualTo(2);
            assertThat(batch.isPosted(0)).isTrue();
            assertThat(batch.key(0)).isEqualTo(-5);
            assertThat(batch.payload(0)).isEqualTo(Integer.MIN_VALUE);
            assertThat(batch.key(1)).isEqualTo(Long.MAX_VALUE);
            assertThat(batch.payload(1)).isZero();
        }
    }

    @Test
    void aTimeoutDequeuesNothing() throws Exception {
        try (NotificationPort port = this.backend.openPort()) {
            NotificationBatch batch = new NotificationBatch(2);
            long start = System.nanoTime();
            assertThat(port.dequeue(batch, 50)).isZero();
            assertThat(batch.size()).isZero();
            assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(40);
            assertThat(port.dequeue(batch, 0)).isZero();
        }
    }

    @Test
    void aDatagramLongerThanTheBufferArrivesTruncatedToTheBuffersRoom() throws Exception {
        NativeSockets sockets = this.backend.sockets();
        long server = sockets.open(Protocol.UDP, StandardProtocolFamily.INET);
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            sockets.bind(server, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            client.send(new DatagramPacket(new byte[100], 100, sockets.localAddress(server)));
            NativeBuffer buffer = sockets.allocate(10);
            PeerAddress sender = PeerAddress.empty();
            int length;
            while ((length = sockets.receiveFrom(server, buffer, sender)) == NativeSockets.WOULD_BLOCK) {
                Thread.sleep(1);
            }
            assertThat(length).isEqualTo(10);
            assertThat(buffer.buffer().position()).isEqualTo(10);
            assertThat(sender.toSocketAddress()).isEqualTo(client.getLocalSocketAddress());
        }
        finally {
            sockets.close(server);
        }
    }

    @Test
    void aBuildWithoutSegmentationOrCoalescingRefusesBothNamingTheBuildThatHasThemAndStillSendsABatch() throws Exception {
        WinsockEmulator emulator = WinsockEmulator.load();
        try {
            emulator.emu_set_udp_offload(0);
            NativeSockets sockets = new WinsockFreshBackend().sockets();
            assertThat(sockets.unsupported(NativeSocketOption.SEGMENT_SIZE, 1000)).contains("UDP_SEND_MSG_SIZE").contains("19041");
            assertThat(sockets.unsupported(NativeSocketOption.RECEIVE_COALESCED, 1)).contains("UDP_RECV_MAX_COALESCED_SIZE").contains("19041");
            long socket = sockets.open(Protocol.UDP, StandardProtocolFamily.INET);
            try (DatagramSocket receiver = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
                assertThatExceptionOfType(NativeIoException.class)
                        .isThrownBy(() -> sockets.setOption(socket, NativeSocketOption.RECEIVE_COALESCED, 1))
                        .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.NOT_SUPPORTED)).withMessageContaining("19041");
                // WSASendMsg is older than the options: a batch of whole datagrams leaves as on any build.
                OutgoingDatagrams batch = sockets.outgoingDatagrams(4);
                assertThat(batch).isNotNull();
                PeerAddress target = PeerAddress.of(receiver.getLocalSocketAddress());
                batch.add(ByteBuffer.wrap("one".getBytes(StandardCharsets.US_ASCII)), target);
                batch.add(ByteBuffer.wrap("two".getBytes(StandardCharsets.US_ASCII)), target);
                assertThat(sockets.sendBatch(socket, batch, 0)).isEqualTo(2);
                receiver.setSoTimeout(5000);
                for (String expected : new String[] {"one", "two"}) {
                    DatagramPacket packet = new DatagramPacket(new byte[64], 64);
                    receiver.receive(packet);
                    assertThat(new String(packet.getData(), 0, packet.getLength(), StandardCharsets.US_ASCII)).isEqualTo(expected);
                }
            }
            finally {
                sockets.close(socket);
            }
        }
        finally {
            emulator.emu_reset();
        }
    }

    @Test
    void aCoalescingSocketReceivesThroughTheWSARecvMsgWinsockHandsOutAndReadsTheSegmentSize() throws Exception {
        NativeSockets sockets = this.backend.sockets();
        long receiver = sockets.open(Protocol.UDP, StandardProtocolFamily.INET);
        long sender = sockets.open(Protocol.UDP, StandardProtocolFamily.INET);
        try {
            sockets.setOption(receiver, NativeSocketOption.RECEIVE_COALESCED, 1);
            assertThat(sockets.getOption(receiver, NativeSocketOption.RECEIVE_COALESCED)).as("read back as a switch").isOne();
            sockets.bind(receiver, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            sockets.bind(sender, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            DatagramBatch plain = sockets.datagramBatch(1, 64 * 1024, false);
            DatagramBatch coalesced = sockets.datagramBatch(1, 64 * 1024, true);
            sockets.setOption(sender, NativeSocketOption.SEGMENT_SIZE, 100);
            sockets.sendTo(sender, ByteBuffer.allocate(950), PeerAddress.of(sockets.localAddress(receiver)));
            int count;
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
            while ((count = sockets.receiveBatch(receiver, coalesced)) == NativeSockets.WOULD_BLOCK && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(count).isOne();
            assertThat(coalesced.datagram(0).remaining()).isEqualTo(950);
            assertThat(coalesced.segmentSize(0)).as("UDP_COALESCED_INFO").isEqualTo(100);
            assertThat(coalesced.sender(0).toSocketAddress()).isEqualTo(sockets.localAddress(sender));
            assertThat(sockets.receiveBatch(receiver, plain)).as("drained").isEqualTo(NativeSockets.WOULD_BLOCK);
        }
        finally {
            sockets.close(sender);
            sockets.close(receiver);
        }
    }

    @Test
    void reusePortDoesNotExistOnWindows() throws Exception {
        NativeSockets sockets = this.backend.sockets();
        long socket = sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        try {
            assertThatExceptionOfType(NativeIoException.class)
                    .isThrownBy(() -> sockets.setOption(socket, NativeSocketOption.REUSE_PORT, 1))
                    .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.NOT_SUPPORTED))
                    .withMessageContaining("SO_REUSEPORT does not exist on Windows");
        }
        finally {
            sockets.close(socket);
        }
    }

    @Test
    void reuseAddressSetsNothingAndEveryBindIsExclusiveSoNoOtherSocketTakesTheListenersPort() throws Exception {
        NativeSockets sockets = this.backend.sockets();
        long listener = sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        long intruder = sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        try {
            sockets.setOption(listener, NativeSocketOption.REUSE_ADDRESS, 1);
            assertThat(sockets.getOption(listener, NativeSocketOption.REUSE_ADDRESS)).as("Windows' SO_REUSEADDR").isZero();
            sockets.bind(listener, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            sockets.listen(listener, 8);
            sockets.setOption(intruder, NativeSocketOption.REUSE_ADDRESS, 1);
            assertThatExceptionOfType(NativeIoException.class).isThrownBy(() -> sockets.bind(intruder, sockets.localAddress(listener)))
                    .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.ADDRESS_IN_USE));
        }
        finally {
            sockets.close(intruder);
            sockets.close(listener);
        }
    }
}
