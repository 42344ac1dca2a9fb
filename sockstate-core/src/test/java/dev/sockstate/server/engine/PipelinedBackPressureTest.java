package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Trigger;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.PendingWriteLimitException;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import dev.sockstate.server.framing.Framing;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Back-pressure within one read, on the real backend: a peer that pipelines many requests in one
 * send and does not read the answers gets no more of them answered once the answers queued for it
 * pass the listener's {@code max-pending-write-bytes}; the requests left are held, not dropped, and
 * answered in order as the peer reads. Before, every frame of a read reached the handler, and every
 * answer the socket did not take was copied to the heap (a thousand requests of a few bytes each
 * queued 32 MiB here).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PipelinedBackPressureTest {

    /** The listener's max-pending-write-bytes. */
    private static final long LIMIT = 128 * 1024;

    /** Each answer's content. */
    private static final int ANSWER = 32 * 1024;

    /** Requests sent in one write; their answers are many times what the sockets' buffers hold. */
    private static final int REQUESTS = 1000;

    /**
     * What may wait beyond the limit: the answer that crossed it and the answers gathered to leave
     * together with it (at most 64 KiB) before the framer looks again.
     */
    private static final long SLACK = ANSWER + 64 * 1024 + 2;

    private final ServerFixture fixture = new ServerFixture();

    private final ExecutorService executor = Executors.newFixedThreadPool(2);

    private final AtomicLong mostPending = new AtomicLong();

    private final AtomicInteger answered = new AtomicInteger();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
        this.executor.shutdownNow();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Trigger.class)
    void aPipelineOfRequestsInOneReadIsAnsweredNoFasterThanThePeerReads(Trigger trigger) throws Exception {
        assertHeldAndAnsweredInOrder(ServerFixture.tcp("pipelined").trigger(trigger));
    }

    @Test
    void aHandlerOnAnExecutorIsHeldBackTheSameWay() throws Exception {
        assertHeldAndAnsweredInOrder(ServerFixture.tcp("pipelined").handlerExecutor(this.executor));
    }

    private void assertHeldAndAnsweredInOrder(ListenerSettings.Builder listener) throws Exception {
        SocketServer server = this.fixture.start(1, listener.framing(Framing.line()).maxPendingWriteBytes(LIMIT)
                .handler(new Answering()).build());
        // A small window, so that the sockets hold little and the rest has to wait in the server.
        Socket client = this.fixture.connectWithSmallWindow(server, "pipelined");
        {
            StringBuilder requests = new StringBuilder();
            for (int i = 0; i < REQUESTS; i++) {
                requests.append(i).append('\n');
            }
            OutputStream out = client.getOutputStream();
            out.write(requests.toString().getBytes(StandardCharsets.US_ASCII));
            out.flush();
            // The server reads the requests, answers until its queue is over the limit, and holds the rest.
            ServerFixture.await(() -> this.answered.get() > 0, "a first answer");
            Thread.sleep(500);
            int answeredWhileUnread = this.answered.get();
            assertThat(this.mostPending.get()).as("answer bytes queued for a peer that reads none")
                    .isLessThanOrEqualTo(LIMIT + SLACK);
            assertThat(answeredWhileUnread).as("requests answered while the peer read nothing").isLessThan(REQUESTS);
            // Read: every answer comes, in order, and the requests held were not lost.
            BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.US_ASCII));
            for (int i = 0; i < REQUESTS; i++) {
                String line = in.readLine();
                assertThat(line).as("answer " + i).isNotNull().hasSize(ANSWER).startsWith(i + ":");
            }
            assertThat(this.answered).hasValue(REQUESTS);
            assertThat(this.mostPending.get()).as("answer bytes queued at most, all along").isLessThanOrEqualTo(LIMIT + SLACK);
            // The connection goes on as before.
            out.write("next\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(in.readLine()).startsWith("next:");
        }
    }

    /**
     * A read stopped because the connection's queue passed its limit leaves the rest of the peer's
     * bytes in the socket, whose edge was spent. When the queue drains in the same turn (the peer read
     * the answers while the handler ran, and a write from another thread has the turn flush again),
     * the filter is what it was and no change raises a new edge: the turn itself must read on.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Trigger.class)
    @BlocksWorkers("holds the handler's call while the peer reads and another thread writes")
    void bytesLeftUnreadWhenTheQueueWasOverItsLimitAreReadOnceItDrainsInTheSameTurn(Trigger trigger) throws Exception {
        int readBuffer = 4 * 1024;
        int sent = 4 * readBuffer;
        long limit = 4 * 1024;
        CountDownLatch allSent = new CountDownLatch(1);
        CountDownLatch overLimit = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        AtomicReference<Connection> held = new AtomicReference<>();
        AtomicLong written = new AtomicLong();
        AtomicLong pendingWhenHeld = new AtomicLong();
        AtomicLong received = new AtomicLong();
        ConnectionHandler handler = new ConnectionHandler() {
            @Override
            public void onOpen(Connection connection) throws Exception {
                // Nothing is read before every byte is in the socket: no arrival raises an edge later.
                allSent.await(10, TimeUnit.SECONDS);
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                received.addAndGet(data.remaining());
                data.position(data.limit());
                if (held.get() != null) {
                    return;
                }
                held.set(connection);
                // Answers until the socket takes no more and the queue is over its limit.
                for (int i = 0; i < 100_000 && connection.pendingWriteBytes() <= limit; i++) {
                    connection.write(ByteBuffer.allocate(1024));
                    written.addAndGet(1024);
                }
                pendingWhenHeld.set(connection.pendingWriteBytes());
                overLimit.countDown();
                letGo.await(10, TimeUnit.SECONDS);
            }
        };
        WorkerGroupSettings defaults = WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1);
        WorkerGroupSettings group = new WorkerGroupSettings(defaults.name(), 1, defaults.batchSize(), defaults.dequeueTimeout(),
                readBuffer, defaults.threadNamePrefix());
        SocketServer server = this.fixture.start(List.of(group), ServerObserver.NONE, ServerFixture.tcp("left")
                .trigger(trigger).maxPendingWriteBytes(limit).handler(handler).build());
        Socket client = this.fixture.connectWithSmallWindow(server, "left");
        client.getOutputStream().write(new byte[sent]);
        allSent.countDown();
        assertThat(overLimit.await(10, TimeUnit.SECONDS)).as("the first read's answers over the limit").isTrue();
        assertThat(pendingWhenHeld.get()).isGreaterThan(limit);
        assertThat(received.get()).as("bytes read while the handler is held").isLessThan(sent);
        // The peer reads what the socket took, so that the queue will fit; a write from another thread has the
        // turn flush it once the handler returns.
        InputStream in = client.getInputStream();
        assertThat(ServerFixture.readCount(in, written.get() - pendingWhenHeld.get())).isEqualTo(written.get() - pendingWhenHeld.get());
        held.get().write(ByteBuffer.wrap(new byte[] { '!' }));
        letGo.countDown();
        assertThat(ServerFixture.readCount(in, pendingWhenHeld.get() + 1)).as("the queue and the other thread's write")
                .isEqualTo(pendingWhenHeld.get() + 1);
        ServerFixture.await(() -> received.get() == sent, "every byte the peer sent read");
    }

    @Test
    void aHandlerThatWritesOnWithoutWaitingForIsWritableIsAbortedOnceItsQueuePassesTheAbortLimit() throws Exception {
        long abortAbove = 1024 * 1024;
        AtomicReference<Throwable> told = new AtomicReference<>();
        ConnectionHandler flooding = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                data.position(data.limit());
                // 64 MiB, never looking at isWritable().
                for (int i = 0; i < 1024; i++) {
                    connection.write(ByteBuffer.allocate(64 * 1024));
                    PipelinedBackPressureTest.this.mostPending.accumulateAndGet(connection.pendingWriteBytes(), Math::max);
                }
            }

            @Override
            public void onError(Connection connection, Throwable error) {
                told.set(error);
            }
        };
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("flooded").framing(Framing.line()).maxPendingWriteBytes(LIMIT)
                .abortPendingWriteBytes(abortAbove).handler(flooding).build());
        Socket client = this.fixture.connectWithSmallWindow(server, "flooded");
        client.getOutputStream().write("go\n".getBytes(StandardCharsets.US_ASCII));
        ServerFixture.await(() -> told.get() != null, "the handler told of the abort");
        assertThat(told.get()).isInstanceOf(PendingWriteLimitException.class)
                .hasMessageContaining("over the abort-pending-write-bytes (abortPendingWriteBytes) of 1048576 bytes");
        assertThat(((PendingWriteLimitException) told.get()).limit()).isEqualTo(abortAbove);
        assertThat(this.mostPending.get()).as("bytes queued at most").isLessThanOrEqualTo(abortAbove + 64 * 1024);
        // Aborted: the peer sees its connection end, the rest of the 64 MiB never sent.
        assertThat(readUntilEnd(client)).isLessThan(8L * 1024 * 1024);
    }

    /** @return the bytes read until the stream ended, or was reset (an abort) */
    private static long readUntilEnd(Socket client) {
        byte[] chunk = new byte[64 * 1024];
        long total = 0;
        try {
            for (int read; (read = client.getInputStream().read(chunk)) >= 0;) {
                total += read;
            }
        }
        catch (java.io.IOException reset) {
            // aborted: a reset ends it too
        }
        return total;
    }

    /** Answers each line with {@link #ANSWER} bytes that start with the line, and notes what waits to be sent. */
    private final class Answering implements ConnectionHandler {

        @Override
        public void onData(Connection connection, ByteBuffer data) {
            byte[] answer = new byte[ANSWER];
            Arrays.fill(answer, (byte) 'a');
            int length = data.remaining();
            data.get(answer, 0, length);
            answer[length] = ':';
            connection.write(ByteBuffer.wrap(answer));
            PipelinedBackPressureTest.this.answered.incrementAndGet();
            PipelinedBackPressureTest.this.mostPending.accumulateAndGet(connection.pendingWriteBytes(), Math::max);
        }
    }
}
