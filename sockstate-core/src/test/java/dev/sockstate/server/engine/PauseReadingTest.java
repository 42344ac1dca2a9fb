package dev.sockstate.server.engine;

import static dev.sockstate.server.engine.ServerFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Connection#pauseReading()} and {@link Connection#resumeReading()} on the real backend: nothing
 * is read while paused, what waited is read on resume, and a resume never reads past the connection's
 * own limit of pending writes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PauseReadingTest {

    private static final long LIMIT = 64 * 1024;

    private final ServerFixture fixture = new ServerFixture();

    private final List<Connection> opened = new CopyOnWriteArrayList<>();

    private final AtomicLong received = new AtomicLong();

    @AfterEach
    void stop() throws IOException {
        this.fixture.close();
    }

    @Test
    void nothingIsReadWhileReadingIsPausedAndWhatWaitedIsReadOnResume() throws Exception {
        Socket client = serve(0);
        Connection connection = this.opened.get(0);
        connection.pauseReading();
        assertThat(connection.isReadingPaused()).isTrue();
        client.getOutputStream().write(new byte[100]);
        Thread.sleep(200);
        assertThat(this.received.get()).as("bytes read while paused").isZero();
        connection.resumeReading();
        await(() -> this.received.get() == 100, "the bytes that waited to be read on resume");
        assertThat(connection.isReadingPaused()).isFalse();
    }

    @Test
    void aResumeReadsNothingWhileTheConnectionsOwnWritesAreOverItsLimit() throws Exception {
        Socket client = serve(256 * LIMIT);
        Connection connection = this.opened.get(0);
        client.getOutputStream().write(1);
        await(() -> connection.pendingWriteBytes() > LIMIT, "the reply to wait over the limit");
        client.getOutputStream().write(new byte[10]);
        for (int i = 0; i < 20; i++) {
            connection.pauseReading();
            connection.resumeReading();
            Thread.sleep(5);
        }
        assertThat(this.received.get()).as("bytes read while the connection's queue was over its limit").isEqualTo(1);
        long reply = 256 * LIMIT;
        assertThat(client.getInputStream().readNBytes((int) reply)).hasSize((int) reply);
        await(() -> this.received.get() == 11, "the rest to be read once the queue drained");
    }

    @Test
    void aFinThatArrivesWhileReadingIsPausedIsHeardAfterTheResume() throws Exception {
        assertFinWhilePausedIsHeard(ServerFixture.tcp("paused"));
    }

    @Test
    void aFinThatArrivesWhileReadingIsPausedIsHeardAfterTheResumeInTheExclusiveEdgeMode() throws Exception {
        // Paused before it was first armed: the resume's enable raises the edge, which carries the hang-up.
        assertFinWhilePausedIsHeard(ServerFixture.tcp("paused").exclusiveEdge(true));
    }

    private void assertFinWhilePausedIsHeard(ListenerSettings.Builder listener) throws Exception {
        CountDownLatch hungUp = new CountDownLatch(1);
        ConnectionHandler handler = new ConnectionHandler() {

            @Override
            public void onOpen(Connection connection) {
                connection.pauseReading();
                PauseReadingTest.this.opened.add(connection);
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                PauseReadingTest.this.received.addAndGet(data.remaining());
                data.position(data.limit());
            }

            @Override
            public void onHangup(Connection connection) {
                hungUp.countDown();
            }
        };
        SocketServer server = this.fixture.start(2, listener.handler(handler).build());
        Socket client = this.fixture.connect(server, "paused");
        await(() -> this.opened.size() == 1, "the connection to open, paused");
        client.getOutputStream().write(new byte[100]);
        client.shutdownOutput();
        Thread.sleep(200);
        assertThat(this.received.get()).as("bytes read while paused").isZero();
        this.opened.get(0).resumeReading();
        await(() -> this.received.get() == 100, "the bytes that waited to be read on resume");
        assertThat(hungUp.await(5, TimeUnit.SECONDS)).as("the peer's FIN heard after the bytes").isTrue();
    }

    /** @return a client of a listener that counts what it reads and answers each read with that many bytes */
    private Socket serve(long replyBytes) throws Exception {
        ConnectionHandler handler = new ConnectionHandler() {

            @Override
            public void onOpen(Connection connection) {
                PauseReadingTest.this.opened.add(connection);
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                PauseReadingTest.this.received.addAndGet(data.remaining());
                data.position(data.limit());
                if (replyBytes > 0) {
                    connection.write(new byte[(int) replyBytes]);
                }
            }
        };
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("paused").handler(handler).maxPendingWriteBytes(LIMIT).build());
        Socket client = this.fixture.connectWithSmallWindow(server, "paused");
        await(() -> this.opened.size() == 1, "the connection to open");
        return client;
    }
}
