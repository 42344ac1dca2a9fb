package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Protocol;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.DatagramHandler;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A UDP listener receives the datagrams waiting on its socket in batches where the backend can
 * ({@code recvmmsg} on epoll), hands each to the handler alone and in order with its sender, and
 * counts the datagrams the system dropped because its receive buffer was full. The worker is held
 * in the handler of a first datagram while a burst queues behind it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@BlocksWorkers("holds the UDP listener's worker in a handler while a burst queues on its socket")
class DatagramBatchTest {

    private final ServerFixture fixture = new ServerFixture();

    private final Recording observer = new Recording();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    private static boolean batches() {
        return ServerFixture.backend().name().equals("epoll");
    }

    @Test
    void aBurstQueuedBehindABusyHandlerIsReceivedInBatchesAndEachDatagramHandedOverAloneInOrder() throws Exception {
        List<String> handled = new CopyOnWriteArrayList<>();
        List<SocketAddress> senders = new CopyOnWriteArrayList<>();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        DatagramHandler handler = (endpoint, data, sender) -> {
            handled.add(StandardCharsets.UTF_8.decode(data).toString());
            senders.add(sender.toSocketAddress());
            if (handled.size() == 1) {
                held.countDown();
                release.await(10, TimeUnit.SECONDS);
            }
        };
        InetSocketAddress target = start(handler, 0, 0);
        int burst = 100;
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            send(client, target, "first");
            assertThat(held.await(5, TimeUnit.SECONDS)).as("the worker is held in the first datagram's handler").isTrue();
            for (int i = 0; i < burst; i++) {
                send(client, target, "datagram " + i);
            }
            release.countDown();
            ServerFixture.await(() -> handled.size() == burst + 1, "every datagram handled");
            assertThat(handled).first().isEqualTo("first");
            for (int i = 0; i < burst; i++) {
                assertThat(handled.get(i + 1)).isEqualTo("datagram " + i);
            }
            assertThat(senders).containsOnly(client.getLocalSocketAddress());
        }
        assertThat(this.observer.datagrams.get()).isEqualTo(burst + 1);
        if (batches()) {
            assertThat(this.observer.largestBatch()).as("the most datagrams one receive took").isEqualTo(16);
            assertThat(this.observer.calls.get()).as("receive calls for %d datagrams", burst + 1).isLessThan(burst / 8);
        }
        else {
            assertThat(this.observer.largestBatch()).as("one datagram a call").isOne();
        }
    }

    @Test
    void theRepliesToABatchLeaveTogetherEachToItsSenderInOrder() throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicLong handled = new AtomicLong();
        DatagramHandler handler = (endpoint, data, sender) -> {
            if (handled.incrementAndGet() == 1) {
                held.countDown();
                release.await(10, TimeUnit.SECONDS);
            }
            String text = StandardCharsets.UTF_8.decode(data).toString();
            assertThat(endpoint.send(ByteBuffer.wrap(("re: " + text).getBytes(StandardCharsets.UTF_8)), sender)).isTrue();
        };
        InetSocketAddress target = start(handler, 0, 0);
        int burst = 60;
        try (DatagramSocket first = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                DatagramSocket second = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            first.setSoTimeout(5000);
            second.setSoTimeout(5000);
            send(first, target, "hold");
            assertThat(held.await(5, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < burst; i++) {
                send((i % 2 == 0) ? first : second, target, "datagram " + i);
            }
            release.countDown();
            assertThat(receive(first)).isEqualTo("re: hold");
            for (int i = 0; i < burst; i++) {
                assertThat(receive((i % 2 == 0) ? first : second)).isEqualTo("re: datagram " + i);
            }
        }
        ServerFixture.await(() -> this.observer.sent.get() == burst + 1, "every reply counted as sent");
        if (batches()) {
            assertThat(this.observer.largestSend()).as("the most replies one send call took").isEqualTo(16);
        }
        else {
            assertThat(this.observer.largestSend()).as("one reply a call").isOne();
        }
    }

    private static String receive(DatagramSocket socket) throws Exception {
        DatagramPacket packet = new DatagramPacket(new byte[64], 64);
        socket.receive(packet);
        return new String(packet.getData(), 0, packet.getLength(), StandardCharsets.UTF_8);
    }

    @Test
    void theDatagramsTheSystemDroppedForAFullReceiveBufferAreCountedWhereItReportsThem() throws Exception {
        AtomicLong handled = new AtomicLong();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch last = new CountDownLatch(1);
        DatagramHandler handler = (endpoint, data, sender) -> {
            if (handled.incrementAndGet() == 1) {
                held.countDown();
                release.await(10, TimeUnit.SECONDS);
            }
            if (StandardCharsets.UTF_8.decode(data).toString().equals("last")) {
                last.countDown();
            }
        };
        InetSocketAddress target = start(handler, 4096, 0);
        int burst = 500;
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            send(client, target, "first");
            assertThat(held.await(5, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < burst; i++) {
                send(client, target, "a datagram of the burst " + i);
            }
            release.countDown();
            // The count rides on the datagrams queued after a drop: the last, sent once the burst drained, carries it.
            awaitQuiet(handled);
            send(client, target, "last");
            assertThat(last.await(10, TimeUnit.SECONDS)).as("the last datagram handled").isTrue();
        }
        long received = handled.get();
        assertThat(received).as("datagrams a 4 KiB buffer held").isLessThan(burst + 2);
        if (batches()) {
            assertThat(this.observer.overflowed.get()).as("dropped of %d sent, %d handled", burst + 2, received).isEqualTo(burst + 2 - received);
        }
        else {
            assertThat(this.observer.overflowed.get()).as("not reported by the %s backend", ServerFixture.backend().name()).isZero();
        }
    }

    @Test
    void aDatagramLongerThanTheListenersRoomIsHandedOverTruncatedAndTheNextWhole() throws Exception {
        List<String> handled = new CopyOnWriteArrayList<>();
        InetSocketAddress target = start((endpoint, data, sender) -> handled.add(StandardCharsets.UTF_8.decode(data).toString()), 0, 8);
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            send(client, target, "twelve bytes");
            send(client, target, "eight b!");
            ServerFixture.await(() -> handled.size() == 2, "both datagrams handled");
        }
        assertThat(handled).containsExactly("twelve b", "eight b!");
    }

    private InetSocketAddress start(DatagramHandler handler, int receiveBuffer, int maxDatagramSize) {
        var listener = ServerFixture.udp("udp").group("udp").trigger(Trigger.EDGE_PERSISTENT).maxDatagramSize(maxDatagramSize).handler(handler);
        if (receiveBuffer > 0) {
            listener.receiveBufferSize(receiveBuffer);
        }
        SocketServer server = this.fixture.start(List.of(WorkerGroupSettings.of("default", 1), WorkerGroupSettings.of("udp", 1)),
                this.observer, listener.build());
        return (InetSocketAddress) server.listener("udp").address();
    }

    /** Waits until the handler has heard of no datagram for 200 ms. */
    private static void awaitQuiet(AtomicLong handled) throws InterruptedException {
        long before;
        do {
            before = handled.get();
            Thread.sleep(200);
        }
        while (handled.get() != before);
    }

    private static void send(DatagramSocket client, InetSocketAddress target, String text) throws Exception {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        client.send(new DatagramPacket(payload, payload.length, target));
    }

    /** Records what the UDP listener's observer hears. */
    static final class Recording implements ServerObserver {

        final AtomicLong calls = new AtomicLong();

        final AtomicLong datagrams = new AtomicLong();

        final AtomicLong overflowed = new AtomicLong();

        final AtomicLong sent = new AtomicLong();

        private final AtomicLong largest = new AtomicLong();

        private final AtomicLong largestSend = new AtomicLong();

        long largestSend() {
            return this.largestSend.get();
        }

        long largestBatch() {
            return this.largest.get();
        }

        @Override
        public ListenerObserver listener(String listener, Protocol protocol, ActiveCounts active) {
            if (protocol != Protocol.UDP) {
                return ListenerObserver.NONE;
            }
            return new ListenerObserver() {

                @Override
                public void receivedDatagrams(int count) {
                    Recording.this.calls.incrementAndGet();
                    Recording.this.datagrams.addAndGet(count);
                    Recording.this.largest.accumulateAndGet(count, Math::max);
                }

                @Override
                public void sentDatagrams(int count) {
                    Recording.this.sent.addAndGet(count);
                    Recording.this.largestSend.accumulateAndGet(count, Math::max);
                }

                @Override
                public void datagramsOverflowed(long count) {
                    Recording.this.overflowed.addAndGet(count);
                }
            };
        }
    }
}
