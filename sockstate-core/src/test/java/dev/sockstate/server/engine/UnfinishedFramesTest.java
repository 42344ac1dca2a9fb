package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Protocol;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.framing.FramingException;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Unfinished frames are bounded in time (the frame timeout) and, over all the connections of a
 * listener, in memory (the budget of unfinished bytes), against real sockets.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnfinishedFramesTest {

    private final ServerFixture fixture = new ServerFixture();

    private final AtomicReference<ServerObserver.ActiveCounts> counts = new AtomicReference<>();

    private final AtomicInteger framesRejected = new AtomicInteger();

    private final ServerObserver observer = new ServerObserver() {
        @Override
        public ListenerObserver listener(String listener, Protocol protocol, ActiveCounts active) {
            UnfinishedFramesTest.this.counts.set(active);
            return new ListenerObserver() {
                @Override
                public void frameRejected() {
                    UnfinishedFramesTest.this.framesRejected.incrementAndGet();
                }
            };
        }
    };

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    private SocketServer start(Framing framing, EchoHandler handler) {
        ListenerSettings listener = ServerFixture.tcp("framed").framing(framing).handler(handler).build();
        return this.fixture.start(List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)), this.observer, listener);
    }

    @Test
    void aFrameNotFinishedWithinTheFrameTimeoutClosesItsConnectionWhileOneQuietBetweenFramesStays() throws Exception {
        EchoHandler handler = new EchoHandler();
        SocketServer server = start(Framing.line().withFrameTimeout(Duration.ofMillis(300)), handler);
        Socket trickler = this.fixture.connect(server, "framed");
        Socket patient = this.fixture.connect(server, "framed");
        long started = System.nanoTime();
        trickler.getOutputStream().write("never end".getBytes(StandardCharsets.US_ASCII));
        patient.getOutputStream().write("one\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(line(patient.getInputStream())).isEqualTo("one");
        assertThat(trickler.getInputStream().read()).as("the server closed the unfinished frame's connection").isEqualTo(-1);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("not before its frame timeout").isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(this.framesRejected).hasValue(1);
        Thread.sleep(700);
        patient.getOutputStream().write("two, after a pause longer than the frame timeout\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(line(patient.getInputStream())).isEqualTo("two, after a pause longer than the frame timeout");
        ServerFixture.await(() -> this.counts.get().unfinishedFrameBytes() == 0, "the closed connection's frame given back");
        assertThat(server.listener("framed").activeConnections()).isEqualTo(1);
    }

    /**
     * The handler pauses reading after a frame whose read brought the start of the next: while it is
     * paused the server, not the peer, is the one waiting, and that time does not count against the
     * frame timeout.
     */
    @Test
    void timeTheConnectionSpendsNotReadingDoesNotCountAgainstTheFrameTimeout() throws Exception {
        java.util.concurrent.ScheduledExecutorService later = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        try {
            EchoHandler handler = new EchoHandler() {
                @Override
                public void onData(dev.sockstate.server.Connection connection, java.nio.ByteBuffer data) throws Exception {
                    super.onData(connection, data);
                    connection.pauseReading();
                    later.schedule(connection::resumeReading, 1200, TimeUnit.MILLISECONDS);
                }
            };
            SocketServer server = start(Framing.line().withFrameTimeout(Duration.ofMillis(300)), handler);
            Socket client = this.fixture.connect(server, "framed");
            client.getOutputStream().write("first\nsec".getBytes(StandardCharsets.US_ASCII));
            assertThat(line(client.getInputStream())).isEqualTo("first");
            Thread.sleep(1000);
            client.getOutputStream().write("ond\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(line(client.getInputStream())).as("the frame begun before the pause, finished after it").isEqualTo("second");
            assertThat(this.framesRejected).hasValue(0);
        }
        finally {
            later.shutdownNow();
        }
    }

    @Test
    void theUnfinishedFramesOfAllConnectionsStayWithinTheirBudgetAndAClosedOneGivesItsShareBack() throws Exception {
        EchoHandler handler = new EchoHandler();
        int frame = 16 * 1024;
        SocketServer server = start(Framing.line().withMaxFrameSize(frame).withMaxUnfinishedBytes(4L * frame), handler);
        byte[] almost = new byte[frame - 1024];
        Arrays.fill(almost, (byte) 'x');
        List<Socket> holders = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Socket holder = this.fixture.connect(server, "framed");
            holder.getOutputStream().write(almost);
            holders.add(holder);
            int held = i + 1;
            ServerFixture.await(() -> this.counts.get().unfinishedFrameBytes() == (long) held * frame, "frame " + held + " held");
        }
        Socket over = this.fixture.connect(server, "framed");
        over.getOutputStream().write(almost);
        assertThat(over.getInputStream().read()).as("the frame past the budget closed its connection").isEqualTo(-1);
        ServerFixture.await(() -> handler.errors.size() == 1, "the handler told");
        assertThat(handler.errors).singleElement().isInstanceOfSatisfying(FramingException.class,
                (refusal) -> assertThat(refusal.reason()).isEqualTo(FramingException.Reason.UNFINISHED_LIMIT));
        assertThat(this.counts.get().unfinishedFrameBytes()).isEqualTo(4L * frame);
        holders.get(0).getOutputStream().write('\n');
        assertThat(holders.get(0).getInputStream().readNBytes(almost.length + 1)).hasSize(almost.length + 1);
        holders.get(1).close();
        ServerFixture.await(() -> this.counts.get().unfinishedFrameBytes() == 2L * frame, "a finished and a closed frame given back");
        Socket next = this.fixture.connect(server, "framed");
        next.getOutputStream().write(almost);
        next.getOutputStream().write('\n');
        assertThat(next.getInputStream().readNBytes(almost.length + 1)).as("a frame within the budget again").hasSize(almost.length + 1);
        assertThat(this.framesRejected).hasValue(1);
    }

    @Test
    void theDefaultsBoundFramesToAMinuteAndListenersToSixtyFourMebibytesOrFourOfTheLongestFrames() {
        Framing line = Framing.line();
        assertThat(line.frameTimeout()).isEqualTo(Duration.ofMinutes(1));
        assertThat(line.maxUnfinishedBytes()).isEqualTo(64L * 1024 * 1024);
        assertThat(line.withMaxFrameSize(64 * 1024 * 1024).maxUnfinishedBytes()).isEqualTo(256L * 1024 * 1024);
        assertThat(line.withMaxUnfinishedBytes(1 << 20).withMaxFrameSize(512 * 1024).maxUnfinishedBytes()).as("a budget set stays")
                .isEqualTo(1 << 20);
        assertThat(line.withFrameTimeout(Duration.ZERO).frameTimeout()).as("no limit").isNull();
        assertThat(ServerFixture.tcp("quiet").handler(new EchoHandler()).build().connection().idleTimeout()).isEqualTo(Duration.ofHours(1));
        assertThat(ServerFixture.udp("datagrams").handler((endpoint, data, sender) -> { }).build().connection().idleTimeout()).isNull();
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> line.withMaxUnfinishedBytes(100))
                .withMessageContaining("at least the longest frame");
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            line.append((char) b);
        }
        return line.toString();
    }
}
