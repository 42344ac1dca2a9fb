package dev.sockstate.server.engine;

import static dev.sockstate.server.engine.ServerFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.heartbeat.Heartbeat;
import dev.sockstate.server.heartbeat.HeartbeatTimeoutException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A listener's heartbeat on the real backend, with real peers: a quiet peer is pinged, and aborted when
 * nothing answers in time, its handler told; a peer that answers, or that keeps talking, stays.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HeartbeatTest {

    private static final byte[] PING = "PING\n".getBytes(StandardCharsets.US_ASCII);

    private final ServerFixture fixture = new ServerFixture();

    private final Queue<Throwable> errors = new ConcurrentLinkedQueue<>();

    private final Queue<String> received = new ConcurrentLinkedQueue<>();

    @AfterEach
    void stop() throws IOException {
        this.fixture.close();
    }

    @Test
    void aQuietPeerIsPingedThenAbortedWhenNothingAnswersItsHandlerTold() throws Exception {
        Heartbeat heartbeat = Heartbeat.of(Duration.ofMillis(200), Duration.ofMillis(300), PING);
        Socket peer = serve(heartbeat);
        long quietSince = System.nanoTime();
        assertThat(peer.getInputStream().readNBytes(PING.length)).as("the ping").isEqualTo(PING);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - quietSince)).as("ms before the ping").isGreaterThanOrEqualTo(150);
        assertThat(endOf(peer.getInputStream())).as("the end after the unanswered ping").isTrue();
        await(() -> !this.errors.isEmpty(), "the handler to hear of the abort");
        assertThat(this.errors.peek()).isInstanceOf(HeartbeatTimeoutException.class).hasMessageContaining("300 ms");
        assertThat(heartbeat.pings()).isEqualTo(1);
        assertThat(heartbeat.timeouts()).isEqualTo(1);
    }

    @Test
    void aPeerThatAnswersEachPingStaysAndItsAnswersReachTheHandler() throws Exception {
        Heartbeat heartbeat = Heartbeat.of(Duration.ofMillis(150), Duration.ofSeconds(3), PING);
        Socket peer = serve(heartbeat);
        for (int i = 0; i < 4; i++) {
            assertThat(peer.getInputStream().readNBytes(PING.length)).isEqualTo(PING);
            peer.getOutputStream().write("PONG\n".getBytes(StandardCharsets.US_ASCII));
        }
        assertThat(heartbeat.pings()).isGreaterThanOrEqualTo(4);
        assertThat(heartbeat.timeouts()).isZero();
        assertThat(this.errors).isEmpty();
        await(() -> String.join("", this.received).equals("PONG\n".repeat(4)), "the answers to reach the handler");
    }

    @Test
    void aPeerThatKeepsTalkingIsNeverPinged() throws Exception {
        Heartbeat heartbeat = Heartbeat.of(Duration.ofSeconds(2), Duration.ofSeconds(2), PING);
        Socket peer = serve(heartbeat);
        for (int i = 0; i < 30; i++) {
            peer.getOutputStream().write('.');
            Thread.sleep(100);
        }
        assertThat(heartbeat.pings()).as("pings in three seconds of bytes every 100 ms, the idle time 2 s").isZero();
        assertThat(peer.getInputStream().available()).isZero();
    }

    private Socket serve(Heartbeat heartbeat) throws IOException {
        ConnectionHandler handler = new ConnectionHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                HeartbeatTest.this.received.add(StandardCharsets.US_ASCII.decode(data).toString());
            }

            @Override
            public void onError(Connection connection, Throwable error) {
                HeartbeatTest.this.errors.add(error);
            }
        };
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("beating").stage(heartbeat).handler(handler).build());
        return this.fixture.connect(server, "beating");
    }

    /** @return whether the stream ended (or was reset) before any other byte came */
    private static boolean endOf(InputStream in) throws IOException {
        try {
            return in.read() == -1;
        }
        catch (SocketException ex) {
            return true;
        }
    }
}
