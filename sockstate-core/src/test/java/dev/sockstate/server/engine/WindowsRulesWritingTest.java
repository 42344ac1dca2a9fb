package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Backends;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.Trigger;
import dev.sockstate.port.winsock.WinsockBackend;
import dev.sockstate.port.winsock.WinsockEmulator;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Replies bigger than the socket takes, on the winsock backend over the emulator in its strict
 * mode: an OUT edge comes only for room that appears after the registration was enabled, and a
 * send refused for want of buffers (WSAENOBUFS) raises no edge at all. Each test holds the server
 * at the point where a runtime relying on a kinder backend would leave the reply waiting for ever.
 */
@EnabledIfSystemProperty(named = WinsockBackend.LIBRARY_PROPERTY, matches = ".+", disabledReason = "the Winsock emulator is built on Linux only")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WindowsRulesWritingTest {

    /** Bigger than what a loopback socket and its peer buffer between them. */
    private static final int BIG_REPLY = 16 << 20;

    private final ServerFixture fixture = new ServerFixture();

    private final WinsockEmulator emulator = WinsockEmulator.load();

    private final ExecutorService client = Executors.newCachedThreadPool();

    /** Sends that the emulator refused for want of buffers, in the order the server saw them. */
    private final Queue<Long> refusals = new ConcurrentLinkedQueue<>();

    /** Released when the send right after a refused one returns would-block. */
    private final CountDownLatch blockedAfterRefusal = new CountDownLatch(1);

    /** Whether the last send was refused; the server's threads, one at a time. */
    private volatile boolean lastRefused;

    /** A socket whose send after a refused one finds the socket full; 0 for none. */
    private volatile long fullAfterRefusal;

    /** Released once for each refused send. */
    private final Semaphore refused = new Semaphore(0);

    private final Backend winsock = SocketCallWatch.watched(Backends.select("winsock"), (method, result, thrown) -> {
        if (!method.equals("send")) {
            return;
        }
        boolean refusal = thrown instanceof NativeIoException failure && failure.error() == NativeError.NO_MEMORY;
        if (refusal) {
            this.refusals.add(System.nanoTime());
            this.refused.release();
            if (this.fullAfterRefusal != 0) {
                this.emulator.emu_fail_next_sends(this.fullAfterRefusal, 1, WinsockEmulator.WSAEWOULDBLOCK);
            }
        }
        else if (this.lastRefused && Integer.valueOf(NativeSockets.WOULD_BLOCK).equals(result)) {
            this.blockedAfterRefusal.countDown();
        }
        this.lastRefused = refusal;
    });

    @AfterEach
    void stop() throws Exception {
        this.client.shutdownNow();
        this.fixture.close();
        this.emulator.emu_reset();
    }

    private SocketServer start(int workers, ListenerSettings listener) {
        return this.fixture.startOnStrictEmulator(this.winsock, this.emulator, workers, listener);
    }

    @Test
    @BlocksWorkers("holds onOpen until the data is in")
    void aBigReplyToDataReadRightAfterAnEdgeOneShotRegistrationWasEnabledArrivesWhole() throws Exception {
        CountDownLatch sent = new CountDownLatch(1);
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onOpen(Connection connection) throws Exception {
                super.onOpen(connection);
                // The request is in before the first enable: the drain that follows the enable reads it.
                assertThat(sent.await(10, TimeUnit.SECONDS)).isTrue();
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                connection.write(ByteBuffer.allocate(BIG_REPLY));
            }
        };
        SocketServer server = start(2, ServerFixture.tcp("big").trigger(Trigger.EDGE_ONESHOT).handler(handler).build());
        try (Socket socket = this.fixture.connectWithSmallWindow(server, "big")) {
            socket.getOutputStream().write('?');
            sent.countDown();
            assertThat(ServerFixture.readCount(socket.getInputStream(), BIG_REPLY)).as("reply bytes").isEqualTo(BIG_REPLY);
        }
        assertThat(handler.errors).isEmpty();
    }

    @Test
    @BlocksWorkers("holds the worker in onData until the peer's window filled")
    void aConnectionClosedWithABigReplyWaitingSendsItAllThenCloses() throws Exception {
        AtomicLong read = new AtomicLong();
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                connection.write(ByteBuffer.allocate(BIG_REPLY));
                long sentSoFar = BIG_REPLY - connection.pendingWriteBytes();
                connection.close();
                // Held until the client read all the socket took: the room is back before the filter
                // changes to OUT, so no edge will announce it.
                ServerFixture.await(() -> read.get() >= sentSoFar, "the client read what the socket took");
            }
        };
        SocketServer server = start(1, ServerFixture.tcp("close").trigger(Trigger.EDGE_PERSISTENT).handler(handler).build());
        try (Socket socket = this.fixture.connectWithSmallWindow(server, "close")) {
            Future<Long> reading = this.client.submit(() -> readToEnd(socket.getInputStream(), read));
            socket.getOutputStream().write('?');
            assertThat(reading.get(30, TimeUnit.SECONDS)).as("bytes before the end of the stream").isEqualTo(BIG_REPLY);
        }
        assertThat(handler.errors).isEmpty();
    }

    @Test
    void aReplyWhoseRetriedSendFoundTheSocketFullArrivesWholeOnceThePeerReads() throws Exception {
        CountDownLatch replying = new CountDownLatch(1);
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                if (data.get(0) == '?') {
                    connection.write(ByteBuffer.allocate(BIG_REPLY));
                    long handle = ((TcpConnection) connection).handle;
                    // The next send is refused; its retry then finds the socket full (the peer reads nothing yet).
                    WindowsRulesWritingTest.this.fullAfterRefusal = handle;
                    assertThat(WindowsRulesWritingTest.this.emulator.emu_fail_next_sends(handle, 1, WinsockEmulator.WSAENOBUFS)).isZero();
                    replying.countDown();
                }
            }
        };
        // Reading goes on while the reply waits, so that the peer's next bytes start a turn.
        SocketServer server = start(1, ServerFixture.tcp("full").trigger(Trigger.LEVEL_ONESHOT).maxPendingWriteBytes(2L * BIG_REPLY)
                .handler(handler).build());
        try (Socket socket = this.fixture.connectWithSmallWindow(server, "full")) {
            OutputStream out = socket.getOutputStream();
            out.write('?');
            assertThat(replying.await(10, TimeUnit.SECONDS)).isTrue();
            // More data: its turn tries the queued reply first, and that send is refused.
            out.write('.');
            assertThat(this.blockedAfterRefusal.await(10, TimeUnit.SECONDS)).as("the retry found the socket full").isTrue();
            assertThat(ServerFixture.readCount(socket.getInputStream(), BIG_REPLY)).as("reply bytes").isEqualTo(BIG_REPLY);
        }
        assertThat(handler.errors).isEmpty();
    }

    @Test
    void aShortageShorterThanTheRetriesIsOutlastedWhateverThePeerSendsMeanwhile() throws Exception {
        byte[] reply = "outlasted".getBytes(StandardCharsets.US_ASCII);
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                if (data.get(0) == '?') {
                    long handle = ((TcpConnection) connection).handle;
                    // 300 ms: less than the pauses between the retries add up to (2 + 4 + ... + 256 ms).
                    assertThat(WindowsRulesWritingTest.this.emulator.emu_fail_sends_for(handle, 300, WinsockEmulator.WSAENOBUFS)).isZero();
                    connection.write(ByteBuffer.wrap(reply));
                }
            }
        };
        SocketServer server = start(1, ServerFixture.tcp("short").trigger(Trigger.LEVEL_ONESHOT).handler(handler).build());
        Socket socket = this.fixture.connect(server, "short");
        OutputStream out = socket.getOutputStream();
        AtomicBoolean replied = new AtomicBoolean();
        // Each refusal is answered by more data from the peer, so that turns come faster than the retries.
        Future<?> poking = this.client.submit(() -> {
            for (int i = 0; i < 20 && !replied.get(); i++) {
                if (this.refused.tryAcquire(5, TimeUnit.SECONDS)) {
                    out.write('.');
                }
            }
            return null;
        });
        out.write('?');
        byte[] received = TlsFixture.readFully(socket.getInputStream(), reply.length);
        replied.set(true);
        assertThat(new String(received, StandardCharsets.US_ASCII)).isEqualTo("outlasted");
        assertThat(handler.errors).isEmpty();
        assertThat(this.refusals).as("sends refused during the shortage").hasSizeGreaterThan(1);
        poking.cancel(true);
    }

    /** @return the bytes read until the end of the stream, counted into {@code read} as they come */
    private static long readToEnd(InputStream in, AtomicLong read) throws IOException {
        byte[] chunk = new byte[64 * 1024];
        int count;
        while ((count = in.read(chunk)) >= 0) {
            read.addAndGet(count);
        }
        return read.get();
    }
}
