package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Protocol;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.DatagramHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What an observer hears of a framed listener's handler calls: call by call, each with its own time,
 * when it asks for no sums; summed over the frames of each read when it does, every call counted once
 * and none with a time of zero (the open's and the close's calls, which come of no read, one by one); and a call that fails among summed ones on its own, as a failure, with
 * the calls before it in the read still counted as successes; requests handed to a handler and answered
 * in one read, counted together when the observer sums. A datagram listener's calls likewise: summed
 * over the datagrams of each receive, a failure among them on its own.
 */
class HandlerTimesTest {

    private static final int LINES = 200;

    /** Datagrams a test sends in a burst: well within the system's default receive buffer. */
    private static final int DATAGRAMS = 100;

    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws IOException {
        this.fixture.close();
    }

    @Test
    void anObserverThatAsksForNoSumsHearsEachCallWithItsTime() throws Exception {
        Times times = new Times(false);
        Socket client = start(times, (connection, line) -> connection.write(line));
        sendLinesAndReadThemBack(client);
        // Each line's call, the open's, and any onWritable's (a socket that took a reply in part, as the faults of a
        // misbehaving backend make it).
        assertThat(times.single.get()).isEqualTo(LINES + 1 + times.writables.get());
        assertThat(times.zeroTimes.get()).as("calls reported with no time").isZero();
        assertThat(times.summedCalls.get()).isZero();
    }

    @Test
    void anObserverThatSumsHearsEachReadsCallsTogetherEachCountedOnce() throws Exception {
        Times times = new Times(true);
        Socket client = start(times, (connection, line) -> connection.write(line));
        sendLinesAndReadThemBack(client);
        assertThat(times.summedCalls.get()).as("calls counted in sums").isEqualTo(LINES);
        assertThat(times.sums.get()).as("sums reported, one a read at most").isBetween(1, LINES - 1);
        assertThat(times.single.get()).as("calls reported one by one: the open's and any onWritable's, which came of no read")
                .isEqualTo(1 + times.writables.get());
        assertThat(times.zeroTimes.get()).as("sums reported with no time").isZero();
    }

    @Test
    void aCallThatFailsAmongSummedOnesIsReportedOnItsOwnAsAFailure() throws Exception {
        Times times = new Times(true);
        AtomicInteger seen = new AtomicInteger();
        Socket client = start(times, (connection, line) -> {
            if (seen.incrementAndGet() == 3) {
                throw new IllegalStateException("the third line fails");
            }
        });
        client.getOutputStream().write("one\ntwo\nthree\nfour\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(client.getInputStream().read()).as("the connection closed by the failure").isEqualTo(-1);
        ServerFixture.await(() -> times.failures.get() == 1, "the failure to be reported");
        assertThat(times.failureNanos.get()).isPositive();
        ServerFixture.await(() -> times.single.get() == 2, "the open's and the close's calls to be reported");
        assertThat(times.summedCalls.get()).as("the lines' calls before it, summed").isEqualTo(2);
    }

    @Test
    @BlocksWorkers("holds the UDP listener's worker in the first datagram's handler while the others queue on its socket")
    void aDatagramListenersObserverThatSumsHearsEachReceivesCallsTogetherEachCountedOnce() throws Exception {
        Times times = new Times(true);
        AtomicInteger received = new AtomicInteger();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        InetSocketAddress target = startDatagrams(times, (endpoint, data, sender) -> {
            if (received.incrementAndGet() == 1) {
                held.countDown();
                release.await(10, TimeUnit.SECONDS);
            }
        });
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            send(client, target, 0);
            assertThat(held.await(5, TimeUnit.SECONDS)).as("the worker is held in the first datagram's handler").isTrue();
            for (int i = 1; i < DATAGRAMS; i++) {
                send(client, target, i);
            }
        }
        release.countDown();
        ServerFixture.await(() -> received.get() == DATAGRAMS, "every datagram to reach the handler");
        ServerFixture.await(() -> times.summedCalls.get() == DATAGRAMS, "every call to be counted in a sum");
        if (ServerFixture.backend().name().equals("epoll")) {
            // The first datagram's receive, then the queued ones up to the listener's receive batch (16) a call.
            assertThat(times.sums.get()).as("sums reported, one a receive").isBetween(2, DATAGRAMS / 8);
        }
        else {
            assertThat(times.sums.get()).as("sums reported, one a receive of one datagram").isEqualTo(DATAGRAMS);
        }
        assertThat(times.single.get()).as("calls reported one by one").isZero();
        assertThat(times.zeroTimes.get()).as("sums reported with no time").isZero();
    }

    @Test
    void aDatagramListenersObserverThatAsksForNoSumsHearsEachCallWithItsTime() throws Exception {
        Times times = new Times(false);
        sendDatagrams(startDatagrams(times, (endpoint, data, sender) -> { }), DATAGRAMS);
        ServerFixture.await(() -> times.single.get() == DATAGRAMS, "every call to be reported");
        assertThat(times.summedCalls.get()).isZero();
        assertThat(times.zeroTimes.get()).as("calls reported with no time").isZero();
    }

    @Test
    void aDatagramCallThatFailsAmongSummedOnesIsReportedOnItsOwnAsAFailure() throws Exception {
        Times times = new Times(true);
        AtomicInteger seen = new AtomicInteger();
        sendDatagrams(startDatagrams(times, (endpoint, data, sender) -> {
            if (seen.incrementAndGet() == 3) {
                throw new IllegalStateException("the third datagram fails");
            }
        }), 4);
        ServerFixture.await(() -> times.failures.get() == 1 && times.summedCalls.get() == 3, "the failure and the three other calls");
        assertThat(times.failureNanos.get()).as("the failed call's time").isPositive();
        assertThat(times.single.get()).as("successful calls reported one by one").isZero();
    }

    @Test
    void requestsHandedToAHandlerAndAnsweredInOneReadAreCountedTogetherWhenTheObserverSums() throws Exception {
        Times times = new Times(true);
        // A backend that answers ten lines at once, in one write, once it has them all (its worker's alone).
        ByteArrayOutputStream held = new ByteArrayOutputStream();
        ConnectionHandler tenAtOnce = (connection, data) -> {
            while (data.hasRemaining()) {
                held.write(data.get());
            }
            if (held.size() == 10 * "r0\n".length()) {
                connection.write(held.toByteArray());
            }
        };
        SocketServer backend = this.fixture.start(1, ServerFixture.tcp("backend").handler(tenAtOnce).build());
        ServerObserver observer = new ServerObserver() {
            @Override
            public ListenerObserver client(String client, ActiveCounts active) {
                return times;
            }
        };
        SocketServer server = this.fixture.start(ServerFixture.backend(), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)),
                List.of(ClientSettings.builder("tens").address("127.0.0.1", backend.listener("backend").portNumber())
                        .framing(Framing.line()).build()), observer);
        SocketClient client = server.client("tens");
        ServerFixture.await(() -> client.connections().size() == 1, "the client's connection to open");
        AtomicInteger answered = new AtomicInteger();
        for (int i = 0; i < 10; i++) {
            client.request("r" + i, (reply, failure) -> answered.incrementAndGet());
        }
        ServerFixture.await(() -> answered.get() == 10, "the ten replies");
        // Requests handed to a handler are counted as their read ends, after the handlers ran.
        ServerFixture.await(() -> times.requestsCounted.get() == 10, "the ten requests to be counted");
        assertThat(times.requestSums.get()).as("sums reported, one a read").isBetween(1, 9);
        assertThat(times.requestNanos.get()).isPositive();
        assertThat(times.singleRequests.get()).as("requests reported one by one").isZero();
    }

    private Socket start(Times times, ConnectionHandler lines) throws IOException {
        ConnectionHandler handler = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                lines.onData(connection, data);
            }

            @Override
            public void onWritable(Connection connection) {
                times.writables.incrementAndGet();
            }
        };
        ServerObserver observer = listenersHeardBy(times);
        SocketServer server = this.fixture.start(ServerFixture.backend(), List.of(WorkerGroupSettings.of("times", 1).withPortPerWorker(true)),
                observer, ServerFixture.tcp("lines").group("times").framing(Framing.line()).handler(handler).build());
        return this.fixture.connect(server, "lines");
    }

    /** @return a server observer whose every listener reports to the times given */
    private static ServerObserver listenersHeardBy(Times times) {
        return new ServerObserver() {
            @Override
            public ListenerObserver listener(String listener, Protocol protocol, ActiveCounts active) {
                return times;
            }
        };
    }

    /** @return where the datagram listener, with the handler given and one worker, receives */
    private InetSocketAddress startDatagrams(Times times, DatagramHandler handler) {
        ServerObserver observer = listenersHeardBy(times);
        SocketServer server = this.fixture.start(ServerFixture.backend(), List.of(WorkerGroupSettings.of("times", 1)), observer,
                ServerFixture.udp("datagrams").group("times").portNumber(0).handler(handler).build());
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.listener("datagrams").portNumber());
    }

    /** Sends that many small datagrams as fast as the socket takes them, so that a receive may find several. */
    private static void sendDatagrams(InetSocketAddress target, int count) throws IOException {
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            for (int i = 0; i < count; i++) {
                send(client, target, i);
            }
        }
    }

    private static void send(DatagramSocket client, InetSocketAddress target, int number) throws IOException {
        byte[] text = Integer.toString(number).getBytes(StandardCharsets.US_ASCII);
        client.send(new DatagramPacket(text, text.length, target));
    }

    /** Sends the lines in four writes and reads them all back. */
    private static void sendLinesAndReadThemBack(Socket client) throws IOException {
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < LINES; i++) {
            all.append("line ").append(i).append('\n');
        }
        byte[] bytes = all.toString().getBytes(StandardCharsets.US_ASCII);
        int quarter = bytes.length / 4;
        for (int from = 0; from < bytes.length; from += quarter) {
            client.getOutputStream().write(bytes, from, Math.min(quarter, bytes.length - from));
        }
        InputStream in = client.getInputStream();
        assertThat(in.readNBytes(bytes.length)).isEqualTo(bytes);
    }

    /** Counts what the listener's observer hears of handler calls. */
    private static final class Times implements ListenerObserver {

        private final boolean summing;

        final AtomicInteger single = new AtomicInteger();

        final AtomicInteger sums = new AtomicInteger();

        final AtomicInteger summedCalls = new AtomicInteger();

        final AtomicInteger zeroTimes = new AtomicInteger();

        final AtomicInteger failures = new AtomicInteger();

        /** The handler's onWritable calls, each reported alone (they come of no read). */
        final AtomicInteger writables = new AtomicInteger();

        final AtomicLong failureNanos = new AtomicLong();

        Times(boolean summing) {
            this.summing = summing;
        }

        @Override
        public boolean timesHandlers() {
            return true;
        }

        @Override
        public boolean sumsHandlerTimes() {
            return this.summing;
        }

        @Override
        public void handled(long nanos, boolean failed) {
            if (failed) {
                this.failureNanos.addAndGet(nanos);
                this.failures.incrementAndGet();
                return;
            }
            this.single.incrementAndGet();
            if (nanos <= 0) {
                this.zeroTimes.incrementAndGet();
            }
        }

        final AtomicInteger requestSums = new AtomicInteger();

        final AtomicInteger requestsCounted = new AtomicInteger();

        final AtomicLong requestNanos = new AtomicLong();

        final AtomicInteger singleRequests = new AtomicInteger();

        @Override
        public boolean sumsRequestTimes() {
            return this.summing;
        }

        @Override
        public void requests(int count, long nanos) {
            this.requestSums.incrementAndGet();
            this.requestsCounted.addAndGet(count);
            this.requestNanos.addAndGet(nanos);
        }

        @Override
        public void request(String outcome, long nanos) {
            this.singleRequests.incrementAndGet();
        }

        @Override
        public void handled(int calls, long nanos) {
            this.sums.incrementAndGet();
            this.summedCalls.addAndGet(calls);
            if (nanos <= 0) {
                this.zeroTimes.incrementAndGet();
            }
        }
    }
}
