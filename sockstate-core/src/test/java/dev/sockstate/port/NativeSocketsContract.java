package dev.sockstate.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The contract of a backend's native sockets, on real loopback sockets over IPv4 and IPv6. */
public abstract class NativeSocketsContract extends SocketsContract {

    private static final InetAddress IPV6_LOOPBACK = ipv6Loopback();

    @Test
    void tcpOverIpv4EchoesThroughNativeBuffers() throws Exception {
        echoOver(InetAddress.getByName("127.0.0.1"), StandardProtocolFamily.INET);
    }

    @Test
    void tcpOverIpv6EchoesThroughNativeBuffers() throws Exception {
        echoOver(IPV6_LOOPBACK, StandardProtocolFamily.INET6);
    }

    private void echoOver(InetAddress loopback, StandardProtocolFamily family) throws Exception {
        long listener = open(Protocol.TCP, family);
        this.sockets.setOption(listener, NativeSocketOption.REUSE_ADDRESS, 1);
        this.sockets.bind(listener, new InetSocketAddress(loopback, 0));
        this.sockets.listen(listener, 8);
        InetSocketAddress bound = (InetSocketAddress) this.sockets.localAddress(listener);
        assertThat(bound.getAddress()).isEqualTo(loopback);
        assertThat(bound.getPort()).isPositive();
        assertThat(this.sockets.accept(listener)).as("nothing pending").isEqualTo(NativeSockets.NO_SOCKET);
        try (Socket client = new Socket(loopback, bound.getPort())) {
            long connection = acceptWithin(listener);
            assertThat(this.sockets.remoteAddress(connection)).isEqualTo(client.getLocalSocketAddress());
            NativeBuffer buffer = this.sockets.allocate(64);
            assertThat(this.sockets.recv(connection, buffer)).isEqualTo(NativeSockets.WOULD_BLOCK);
            client.getOutputStream().write("hello".getBytes(StandardCharsets.UTF_8));
            int read;
            while ((read = this.sockets.recv(connection, buffer)) == NativeSockets.WOULD_BLOCK) {
                Thread.sleep(1);
            }
            assertThat(read).isEqualTo(5);
            buffer.buffer().flip();
            assertThat(this.sockets.send(connection, buffer)).isEqualTo(5);
            assertThat(buffer.buffer().hasRemaining()).isFalse();
            assertThat(new String(client.getInputStream().readNBytes(5), StandardCharsets.UTF_8)).isEqualTo("hello");
            this.sockets.shutdown(connection, false, true);
            assertThat(client.getInputStream().read()).as("FIN after shutdown").isEqualTo(-1);
        }
    }

    @Test
    void heapBuffersAreCopiedThroughNativeMemory() throws Exception {
        long listener = open(Protocol.TCP, StandardProtocolFamily.INET);
        this.sockets.bind(listener, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.sockets.listen(listener, 8);
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), ((InetSocketAddress) this.sockets.localAddress(listener)).getPort())) {
            long connection = acceptWithin(listener);
            ByteBuffer heap = ByteBuffer.wrap("heap bytes".getBytes(StandardCharsets.UTF_8));
            assertThat(this.sockets.send(connection, heap)).isEqualTo(10);
            assertThat(heap.position()).isEqualTo(10);
            assertThat(new String(client.getInputStream().readNBytes(10), StandardCharsets.UTF_8)).isEqualTo("heap bytes");
            client.getOutputStream().write(new byte[] { 1, 2, 3 });
            ByteBuffer target = ByteBuffer.allocate(8);
            while (this.sockets.recv(connection, target) == NativeSockets.WOULD_BLOCK) {
                Thread.sleep(1);
            }
            assertThat(target.position()).isEqualTo(3);
            assertThat(target.get(2)).isEqualTo((byte) 3);
        }
    }

    /** A direct buffer that is no NativeBuffer, read and written from a position past its start (a stage passes such a one on). */
    @Test
    void aDirectBufferIsSentFromItsPositionAndReadIntoIt() throws Exception {
        long listener = open(Protocol.TCP, StandardProtocolFamily.INET);
        this.sockets.bind(listener, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.sockets.listen(listener, 8);
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), ((InetSocketAddress) this.sockets.localAddress(listener)).getPort())) {
            long connection = acceptWithin(listener);
            ByteBuffer direct = ByteBuffer.allocateDirect(32);
            direct.put("header:payload".getBytes(StandardCharsets.US_ASCII)).flip().position(7);
            assertThat(this.sockets.send(connection, direct)).isEqualTo(7);
            assertThat(direct.hasRemaining()).isFalse();
            assertThat(new String(client.getInputStream().readNBytes(7), StandardCharsets.US_ASCII)).isEqualTo("payload");
            client.getOutputStream().write("in".getBytes(StandardCharsets.US_ASCII));
            ByteBuffer target = ByteBuffer.allocateDirect(16).position(5);
            while (this.sockets.recv(connection, target) == NativeSockets.WOULD_BLOCK) {
                Thread.sleep(1);
            }
            assertThat(target.position()).isEqualTo(7);
            assertThat(target.get(5)).isEqualTo((byte) 'i');
            assertThat(target.get(6)).isEqualTo((byte) 'n');
        }
    }

    @Test
    void aHeapBufferLargerThanOneCopyGoesOutWholeAndInOrder() throws Exception {
        long listener = open(Protocol.TCP, StandardProtocolFamily.INET);
        this.sockets.bind(listener, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.sockets.listen(listener, 8);
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), ((InetSocketAddress) this.sockets.localAddress(listener)).getPort())) {
            long connection = acceptWithin(listener);
            byte[] bytes = new byte[300 * 1024];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) (i % 251);
            }
            CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> {
                try {
                    return client.getInputStream().readNBytes(bytes.length);
                }
                catch (IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            });
            ByteBuffer heap = ByteBuffer.wrap(bytes);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (heap.hasRemaining() && System.nanoTime() < deadline) {
                int sent = this.sockets.send(connection, heap);
                if (sent == NativeSockets.WOULD_BLOCK) {
                    Thread.sleep(1);
                }
            }
            assertThat(heap.hasRemaining()).as("all sent within 10 s").isFalse();
            assertThat(received.get(10, TimeUnit.SECONDS)).isEqualTo(bytes);
        }
    }

    @Test
    void aHeapDatagramIsSentWholeAndConsumed() throws Exception {
        long server = open(Protocol.UDP, StandardProtocolFamily.INET);
        this.sockets.bind(server, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            client.setSoTimeout(5000);
            PeerAddress target = PeerAddress.of((InetSocketAddress) client.getLocalSocketAddress());
            ByteBuffer datagram = ByteBuffer.wrap("heap datagram".getBytes(StandardCharsets.UTF_8));
            assertThat(this.sockets.sendTo(server, datagram, target)).isEqualTo(13);
            assertThat(datagram.hasRemaining()).isFalse();
            DatagramPacket reply = new DatagramPacket(new byte[64], 64);
            client.receive(reply);
            assertThat(new String(reply.getData(), 0, reply.getLength(), StandardCharsets.UTF_8)).isEqualTo("heap datagram");
            assertThatIllegalArgumentException().isThrownBy(() -> this.sockets.sendTo(server, ByteBuffer.allocate(70_000), target))
                    .withMessageContaining("70000 bytes");
        }
    }

    /** @return whether the backend receives many datagrams in one call, as a batch then shows */
    protected boolean receivesBatches() {
        return false;
    }

    /** @return whether the backend makes send batches: those that receive batches, and those that send segments with each datagram */
    protected boolean makesSendBatches() {
        return receivesBatches();
    }

    /**
     * @return whether a sender's segments reach a coalescing socket over loopback as one datagram where the
     * backend coalesces: Linux's loopback does (and the Windows emulator, on it); Windows' is not known to
     */
    protected boolean loopbackCoalesces() {
        return true;
    }

    @Test
    void aBatchReceivesTheDatagramsWaitingInOrderWithTheirSendersEachTruncatedToItsRoom() throws Exception {
        long server = open(Protocol.UDP, StandardProtocolFamily.INET);
        this.sockets.bind(server, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        InetSocketAddress bound = (InetSocketAddress) this.sockets.localAddress(server);
        DatagramBatch batch = this.sockets.datagramBatch(8, 16);
        assertThat(batch.capacity()).isEqualTo(receivesBatches() ? 8 : 1);
        assertThat(batch.datagramSize()).isEqualTo(16);
        assertThat(this.sockets.receiveBatch(server, batch)).isEqualTo(NativeSockets.WOULD_BLOCK);
        assertThat(batch.size()).isZero();
        try (DatagramSocket first = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                DatagramSocket second = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            String[] sent = { "one", "", "three", "a datagram longer than sixteen bytes", "five" };
            for (int i = 0; i < sent.length; i++) {
                byte[] payload = sent[i].getBytes(StandardCharsets.UTF_8);
                ((i % 2 == 0) ? first : second).send(new DatagramPacket(payload, payload.length, bound));
            }
            // All queued before the first receive.
            Thread.sleep(50);
            java.util.List<String> received = new java.util.ArrayList<>();
            java.util.List<java.net.SocketAddress> senders = new java.util.ArrayList<>();
            int calls = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (received.size() < sent.length && System.nanoTime() < deadline) {
                int count = this.sockets.receiveBatch(server, batch);
                if (count == NativeSockets.WOULD_BLOCK) {
                    Thread.sleep(1);
                    continue;
                }
                calls++;
                assertThat(count).isEqualTo(batch.size()).isBetween(1, batch.capacity());
                for (int i = 0; i < count; i++) {
                    received.add(StandardCharsets.UTF_8.decode(batch.datagram(i)).toString());
                    senders.add(batch.sender(i).toSocketAddress());
                }
            }
            assertThat(received).containsExactly("one", "", "three", "a datagram longe", "five");
            assertThat(senders).containsExactly(first.getLocalSocketAddress(), second.getLocalSocketAddress(),
                    first.getLocalSocketAddress(), second.getLocalSocketAddress(), first.getLocalSocketAddress());
            if (receivesBatches()) {
                assertThat(calls).as("receive calls for five datagrams sent before the first").isOne();
            }
            else {
                assertThat(calls).isEqualTo(sent.length);
            }
            assertThat(this.sockets.receiveBatch(server, batch)).isEqualTo(NativeSockets.WOULD_BLOCK);
        }
    }

    @Test
    void aSendBatchSendsItsDatagramsToTheirTargetsInOrderWhereTheBackendMakesOne() throws Exception {
        long server = open(Protocol.UDP, StandardProtocolFamily.INET);
        this.sockets.bind(server, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        OutgoingDatagrams batch = this.sockets.outgoingDatagrams(4);
        assertThat(this.sockets.sendsManyInOneCall()).as("many datagrams a call where many are received a call").isEqualTo(receivesBatches());
        if (!makesSendBatches()) {
            assertThat(batch).as("each datagram sent alone").isNull();
            return;
        }
        assertThat(batch.capacity()).isEqualTo(4);
        try (DatagramSocket first = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                DatagramSocket second = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            first.setSoTimeout(5000);
            second.setSoTimeout(5000);
            PeerAddress toFirst = PeerAddress.of(first.getLocalSocketAddress());
            PeerAddress toSecond = PeerAddress.of(second.getLocalSocketAddress());
            ByteBuffer heap = ByteBuffer.wrap("one".getBytes(StandardCharsets.UTF_8));
            assertThat(batch.add(heap, toFirst)).isTrue();
            assertThat(heap.hasRemaining()).as("consumed").isFalse();
            NativeBuffer kept = this.sockets.allocate(16);
            kept.buffer().put("two".getBytes(StandardCharsets.UTF_8)).flip();
            assertThat(batch.add(kept, toSecond)).isTrue();
            assertThat(batch.add(ByteBuffer.allocate(0), toFirst)).as("an empty datagram").isTrue();
            assertThat(batch.add(ByteBuffer.wrap("four".getBytes(StandardCharsets.UTF_8)), toFirst)).isTrue();
            assertThat(batch.add(ByteBuffer.wrap("five".getBytes(StandardCharsets.UTF_8)), toFirst)).as("over its capacity").isFalse();
            assertThat(this.sockets.sendBatch(server, batch, 0)).isEqualTo(4);
            assertThat(receive(first)).isEqualTo("one");
            assertThat(receive(first)).isEmpty();
            assertThat(receive(first)).isEqualTo("four");
            assertThat(receive(second)).isEqualTo("two");
            assertThat(this.sockets.sendBatch(server, batch, 3)).as("the last again").isOne();
            assertThat(receive(first)).isEqualTo("four");
            batch.clear();
            assertThat(batch.size()).isZero();
        }
    }

    private static String receive(DatagramSocket socket) throws IOException {
        DatagramPacket packet = new DatagramPacket(new byte[64], 64);
        socket.receive(packet);
        return new String(packet.getData(), 0, packet.getLength(), StandardCharsets.UTF_8);
    }

    @Test
    void aSocketAskedForItsOverflowsReportsTheDatagramsItsFullBufferDropped() throws Exception {
        String why = this.sockets.unsupported(NativeSocketOption.RECEIVE_QUEUE_OVERFLOWS, 1);
        long server = open(Protocol.UDP, StandardProtocolFamily.INET);
        if (why != null) {
            assertThatExceptionOfType(NativeIoException.class)
                    .isThrownBy(() -> this.sockets.setOption(server, NativeSocketOption.RECEIVE_QUEUE_OVERFLOWS, 1))
                    .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.NOT_SUPPORTED)).withMessageContaining(why);
            return;
        }
        this.sockets.setOption(server, NativeSocketOption.RECEIVE_QUEUE_OVERFLOWS, 1);
        this.sockets.setOption(server, NativeSocketOption.RECEIVE_BUFFER, 4096);
        this.sockets.bind(server, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        InetSocketAddress bound = (InetSocketAddress) this.sockets.localAddress(server);
        DatagramBatch batch = this.sockets.datagramBatch(16, 64);
        int sent = 500;
        try (DatagramSocket sender = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            byte[] payload = new byte[32];
            for (int i = 0; i < sent; i++) {
                sender.send(new DatagramPacket(payload, payload.length, bound));
            }
            int received = 0;
            int count;
            while ((count = this.sockets.receiveBatch(server, batch)) != NativeSockets.WOULD_BLOCK) {
                received += count;
            }
            assertThat(received).as("datagrams a 4 KiB buffer held").isBetween(1, sent - 1);
            // The count rides on the datagrams queued after a drop: one more, sent now, carries the last.
            sender.send(new DatagramPacket(payload, payload.length, bound));
            Thread.sleep(50);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            int before = received;
            while (System.nanoTime() < deadline && (received == before || batch.overflows() < 0)) {
                count = this.sockets.receiveBatch(server, batch);
                if (count == NativeSockets.WOULD_BLOCK) {
                    Thread.sleep(1);
                }
                else {
                    received += count;
                }
            }
            assertThat(batch.overflows()).as("dropped of %d sent, %d received", sent + 1, received).isEqualTo(sent + 1 - received);
        }
    }

    @Test
    void aSocketWithASegmentSizeSendsALongerDatagramAsSegmentsOfThatSize() throws Exception {
        String why = this.sockets.unsupported(NativeSocketOption.SEGMENT_SIZE, 1000);
        long sender = open(Protocol.UDP, StandardProtocolFamily.INET);
        if (why != null) {
            assertThatExceptionOfType(NativeIoException.class)
                    .isThrownBy(() -> this.sockets.setOption(sender, NativeSocketOption.SEGMENT_SIZE, 1000))
                    .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.NOT_SUPPORTED)).withMessageContaining(why);
            return;
        }
        try (DatagramSocket receiver = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            receiver.setSoTimeout(5000);
            this.sockets.setOption(sender, NativeSocketOption.SEGMENT_SIZE, 1000);
            ByteBuffer data = ByteBuffer.allocate(2500);
            for (int i = 0; i < 2500; i++) {
                data.put((byte) ('a' + i / 1000));
            }
            assertThat(this.sockets.sendTo(sender, data.flip(), PeerAddress.of(receiver.getLocalSocketAddress()))).isEqualTo(2500);
            for (String expected : List.of("a".repeat(1000), "b".repeat(1000), "c".repeat(500))) {
                DatagramPacket packet = new DatagramPacket(new byte[4096], 4096);
                receiver.receive(packet);
                assertThat(new String(packet.getData(), 0, packet.getLength(), StandardCharsets.US_ASCII)).isEqualTo(expected);
            }
            this.sockets.setOption(sender, NativeSocketOption.SEGMENT_SIZE, 0);
            assertThat(this.sockets.sendTo(sender, ByteBuffer.allocate(2500), PeerAddress.of(receiver.getLocalSocketAddress())))
                    .isEqualTo(2500);
            DatagramPacket whole = new DatagramPacket(new byte[4096], 4096);
            receiver.receive(whole);
            assertThat(whole.getLength()).as("a datagram sent with the segment size off again").isEqualTo(2500);
        }
    }

    @Test
    void aSendBatchCutsEachDatagramByTheSegmentSizeGivenWithItAndNoOther() throws Exception {
        long sender = open(Protocol.UDP, StandardProtocolFamily.INET);
        OutgoingDatagrams batch = this.sockets.outgoingDatagrams(4);
        if (batch == null || this.sockets.unsupported(NativeSocketOption.SEGMENT_SIZE, 1000) != null) {
            return;
        }
        try (DatagramSocket receiver = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            receiver.setSoTimeout(5000);
            PeerAddress target = PeerAddress.of(receiver.getLocalSocketAddress());
            assertThat(batch.add(ByteBuffer.allocate(1500), target)).isTrue();
            assertThat(batch.add(ByteBuffer.allocate(2500), target, 1000)).isTrue();
            assertThat(batch.add(ByteBuffer.allocate(1500), target)).isTrue();
            assertThat(this.sockets.sendBatch(sender, batch, 0)).as("messages sent: the segmented one counts once").isEqualTo(3);
            List<Integer> lengths = new java.util.ArrayList<>();
            for (int i = 0; i < 5; i++) {
                DatagramPacket packet = new DatagramPacket(new byte[4096], 4096);
                receiver.receive(packet);
                lengths.add(packet.getLength());
            }
            assertThat(lengths).containsExactly(1500, 1000, 1000, 500, 1500);
        }
    }

    @Test
    void aSocketAskedToCoalesceReceivesASendersSegmentsAsOneDatagramWithItsSegmentSize() throws Exception {
        String why = this.sockets.unsupported(NativeSocketOption.RECEIVE_COALESCED, 1);
        long receiver = open(Protocol.UDP, StandardProtocolFamily.INET);
        if (why != null) {
            assertThatExceptionOfType(NativeIoException.class)
                    .isThrownBy(() -> this.sockets.setOption(receiver, NativeSocketOption.RECEIVE_COALESCED, 1))
                    .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.NOT_SUPPORTED)).withMessageContaining(why);
            return;
        }
        this.sockets.setOption(receiver, NativeSocketOption.RECEIVE_COALESCED, 1);
        assumeTrue(loopbackCoalesces(), "the system coalesces a sender's segments over loopback");
        this.sockets.bind(receiver, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        PeerAddress target = PeerAddress.of(this.sockets.localAddress(receiver));
        long sender = open(Protocol.UDP, StandardProtocolFamily.INET);
        this.sockets.bind(sender, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        // Segmented by the sender's system, the block reaches a socket that takes coalesced datagrams whole.
        this.sockets.setOption(sender, NativeSocketOption.SEGMENT_SIZE, 100);
        this.sockets.sendTo(sender, ByteBuffer.allocate(950), target);
        this.sockets.setOption(sender, NativeSocketOption.SEGMENT_SIZE, 0);
        this.sockets.sendTo(sender, ByteBuffer.allocate(70), target);
        DatagramBatch batch = this.sockets.datagramBatch(4, 64 * 1024, true);
        List<Integer> lengths = new java.util.ArrayList<>();
        List<Integer> segmentSizes = new java.util.ArrayList<>();
        List<Object> senders = new java.util.ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (lengths.size() < 2 && System.nanoTime() < deadline) {
            int count = this.sockets.receiveBatch(receiver, batch);
            if (count == NativeSockets.WOULD_BLOCK) {
                Thread.sleep(1);
                continue;
            }
            for (int i = 0; i < count; i++) {
                lengths.add(batch.datagram(i).remaining());
                segmentSizes.add(batch.segmentSize(i));
                senders.add(batch.sender(i).toSocketAddress());
            }
        }
        assertThat(lengths).as("the coalesced datagram (ten segments), then one sent alone").containsExactly(950, 70);
        assertThat(segmentSizes).containsExactly(100, 0);
        assertThat(senders).containsOnly(this.sockets.localAddress(sender));
    }

    @Test
    void udpOverIpv6ReportsTheSenderAndRepliesToIt() throws Exception {
        long server = open(Protocol.UDP, StandardProtocolFamily.INET6);
        this.sockets.bind(server, new InetSocketAddress(IPV6_LOOPBACK, 0));
        int port = ((InetSocketAddress) this.sockets.localAddress(server)).getPort();
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(IPV6_LOOPBACK, 0))) {
            client.setSoTimeout(5000);
            byte[] payload = "question".getBytes(StandardCharsets.UTF_8);
            client.send(new DatagramPacket(payload, payload.length, new InetSocketAddress(IPV6_LOOPBACK, port)));
            NativeBuffer buffer = this.sockets.allocate(64);
            PeerAddress sender = PeerAddress.empty();
            int length;
            while ((length = this.sockets.receiveFrom(server, buffer, sender)) == NativeSockets.WOULD_BLOCK) {
                Thread.sleep(1);
            }
            assertThat(length).isEqualTo(payload.length);
            assertThat(sender.isIpv6()).isTrue();
            assertThat(sender.toSocketAddress()).isEqualTo(client.getLocalSocketAddress());
            buffer.buffer().clear();
            buffer.buffer().put("answer".getBytes(StandardCharsets.UTF_8)).flip();
            assertThat(this.sockets.sendTo(server, buffer, sender)).isEqualTo(6);
            DatagramPacket reply = new DatagramPacket(new byte[64], 64);
            client.receive(reply);
            assertThat(new String(reply.getData(), 0, reply.getLength(), StandardCharsets.UTF_8)).isEqualTo("answer");
        }
    }

    @Test
    void bindingAPortInUseNamesTheAddress() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            long socket = open(Protocol.TCP, StandardProtocolFamily.INET);
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), taken.getLocalPort());
            assertThatExceptionOfType(NativeIoException.class).isThrownBy(() -> this.sockets.bind(socket, address))
                    .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.ADDRESS_IN_USE))
                    .withMessageContaining("bind(").withMessageContaining(String.valueOf(taken.getLocalPort()));
        }
    }

    @Test
    void aRefusedConnectShowsAsAPendingError() throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }
        long socket = open(Protocol.TCP, StandardProtocolFamily.INET);
        boolean connected = this.sockets.connect(socket, new InetSocketAddress(InetAddress.getLoopbackAddress(), closedPort));
        assertThat(connected).as("a non-blocking connect is under way").isFalse();
        NativeIoException error = null;
        long deadline = System.currentTimeMillis() + 5000;
        while (error == null && System.currentTimeMillis() < deadline) {
            error = this.sockets.takeError(socket);
            Thread.sleep(1);
        }
        assertThat(error).isNotNull();
        assertThat(error.error()).isEqualTo(NativeError.CONNECTION_REFUSED);
    }

    @Test
    void optionsAreSetAndReadBack() throws Exception {
        long socket = open(Protocol.TCP, StandardProtocolFamily.INET);
        this.sockets.setOption(socket, NativeSocketOption.TCP_NODELAY, 1);
        assertThat(this.sockets.getOption(socket, NativeSocketOption.TCP_NODELAY)).isEqualTo(1);
        this.sockets.setOption(socket, NativeSocketOption.RECEIVE_BUFFER, 64 * 1024);
        assertThat(this.sockets.getOption(socket, NativeSocketOption.RECEIVE_BUFFER)).isGreaterThanOrEqualTo(64 * 1024);
        // Accepted everywhere; what it sets is the backend's (Windows sets nothing: see the winsock specifics).
        this.sockets.setOption(socket, NativeSocketOption.REUSE_ADDRESS, 1);
    }

    @Test
    void eachTuningOptionTheBackendHasIsSetAndReadBackAndEachOtherIsRefusedWithItsReason() throws Exception {
        long socket = open(Protocol.TCP, StandardProtocolFamily.INET);
        int[][] values = {
                { NativeSocketOption.SEND_BUFFER.ordinal(), 96 * 1024 },
                { NativeSocketOption.KEEP_ALIVE.ordinal(), 1 },
                { NativeSocketOption.KEEP_ALIVE_IDLE.ordinal(), 45 },
                { NativeSocketOption.KEEP_ALIVE_INTERVAL.ordinal(), 7 },
                { NativeSocketOption.KEEP_ALIVE_COUNT.ordinal(), 4 },
                { NativeSocketOption.USER_TIMEOUT.ordinal(), 12_000 },
                { NativeSocketOption.NOT_SENT_LOW_WATERMARK.ordinal(), 32 * 1024 },
                { NativeSocketOption.TYPE_OF_SERVICE.ordinal(), 0x28 },
                { NativeSocketOption.FAST_OPEN.ordinal(), 64 } };
        for (int[] value : values) {
            NativeSocketOption option = NativeSocketOption.values()[value[0]];
            String why = this.sockets.unsupported(option, value[1]);
            if (why == null) {
                this.sockets.setOption(socket, option, value[1]);
                int read = this.sockets.getOption(socket, option);
                if (option == NativeSocketOption.SEND_BUFFER) {
                    assertThat(read).as(option.nativeName()).isGreaterThanOrEqualTo(value[1]);
                }
                else {
                    assertThat(read).as(option.nativeName()).isEqualTo(value[1]);
                }
            }
            else {
                assertThatExceptionOfType(NativeIoException.class).isThrownBy(() -> this.sockets.setOption(socket, option, value[1]))
                        .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.NOT_SUPPORTED))
                        .withMessageContaining(option.nativeName()).withMessageContaining(why);
            }
        }
    }

    @Test
    void lingerIsOffUntilSetThenReadBackAsItsSecondsOrZero() throws Exception {
        long socket = open(Protocol.TCP, StandardProtocolFamily.INET);
        assertThat(this.sockets.getOption(socket, NativeSocketOption.LINGER)).as("off").isEqualTo(-1);
        this.sockets.setOption(socket, NativeSocketOption.LINGER, 0);
        assertThat(this.sockets.getOption(socket, NativeSocketOption.LINGER)).as("a reset at close").isZero();
        this.sockets.setOption(socket, NativeSocketOption.LINGER, 300);
        assertThat(this.sockets.getOption(socket, NativeSocketOption.LINGER)).as("five minutes").isEqualTo(300);
        this.sockets.setOption(socket, NativeSocketOption.LINGER, -1);
        assertThat(this.sockets.getOption(socket, NativeSocketOption.LINGER)).as("off again").isEqualTo(-1);
    }

    @Test
    void anIpv6SocketTakesATrafficClass() throws Exception {
        long socket = open(Protocol.TCP, StandardProtocolFamily.INET6);
        if (this.sockets.unsupported(NativeSocketOption.IPV6_TRAFFIC_CLASS, 0x48) == null) {
            this.sockets.setOption(socket, NativeSocketOption.IPV6_TRAFFIC_CLASS, 0x48);
            assertThat(this.sockets.getOption(socket, NativeSocketOption.IPV6_TRAFFIC_CLASS)).isEqualTo(0x48);
        }
        else {
            assertThatExceptionOfType(NativeIoException.class)
                    .isThrownBy(() -> this.sockets.setOption(socket, NativeSocketOption.IPV6_TRAFFIC_CLASS, 0x48));
        }
    }

    @Test
    void callsOnAClosedHandleFailNamingTheCall() throws Exception {
        long socket = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.sockets.close(socket);
        assertThatExceptionOfType(NativeIoException.class).isThrownBy(() -> this.sockets.listen(socket, 1))
                .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.BAD_DESCRIPTOR))
                .satisfies((ex) -> assertThat(ex.getStackTrace()).as("a program's fault keeps its stack trace").isNotEmpty())
                .withMessageStartingWith("listen failed");
    }

    @Test
    void aResetByThePeerFailsTheReadWithoutAStackTrace() throws Exception {
        long listener = open(Protocol.TCP, StandardProtocolFamily.INET);
        this.sockets.bind(listener, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.sockets.listen(listener, 8);
        long connection;
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), ((InetSocketAddress) this.sockets.localAddress(listener)).getPort())) {
            connection = acceptWithin(listener);
            client.setSoLinger(true, 0);
        }
        NativeBuffer buffer = this.sockets.allocate(64);
        long deadline = System.currentTimeMillis() + 5000;
        NativeIoException reset = null;
        while (reset == null && System.currentTimeMillis() < deadline) {
            try {
                assertThat(this.sockets.recv(connection, buffer)).as("nothing but the reset arrives").isEqualTo(NativeSockets.WOULD_BLOCK);
                Thread.sleep(1);
            }
            catch (NativeIoException ex) {
                reset = ex;
            }
        }
        assertThat(reset).as("the reset within 5 s").isNotNull();
        assertThat(reset.error()).isEqualTo(NativeError.CONNECTION_RESET);
        assertThat(reset.error().isPeerFailure()).isTrue();
        assertThat(reset.getMessage()).startsWith("recv failed").contains("CONNECTION_RESET");
        assertThat(reset.getStackTrace()).as("an everyday event walks no stack").isEmpty();
    }

    private static InetAddress ipv6Loopback() {
        try {
            return Inet6Address.getByName("::1");
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }
}
