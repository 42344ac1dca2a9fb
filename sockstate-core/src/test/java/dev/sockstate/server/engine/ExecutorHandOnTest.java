package dev.sockstate.server.engine;

import static dev.sockstate.server.engine.ServerFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A handler executor with more turns in flight than the memory kept for them (64), on the real
 * backend: a turn on a thread lent no memory leaves the re-arm to a worker, and the worker, with no
 * new handler work, only re-arms. Before, a connection with queued output went back to the executor
 * at once, whose turn again had no memory and handed it back: measured, 23,000 turns a second went
 * back and forth, and the worker spent a third of a second of processor time each second on one
 * connection that waited for room to write.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExecutorHandOnTest {

    /** Handler calls held at once, more than the 64 runners kept for turns off the workers. */
    private static final int HELD = 72;

    private final ServerFixture fixture = new ServerFixture();

    private final ExecutorService pool = Executors.newCachedThreadPool();

    /** Tasks the executor ran. */
    private final java.util.concurrent.atomic.AtomicLong tasks = new java.util.concurrent.atomic.AtomicLong();

    private final java.util.concurrent.Executor executor = (task) -> {
        this.tasks.incrementAndGet();
        this.pool.execute(task);
    };

    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stop() throws Exception {
        this.release.countDown();
        this.fixture.close();
        this.pool.shutdownNow();
    }

    @Test
    void aConnectionWaitingForRoomToWriteCostsTheWorkerNoProcessorTimeWhileTheExecutorsTurnsHaveNoMemory() throws Exception {
        AtomicInteger heldCalls = new AtomicInteger();
        ConnectionHandler handler = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                byte first = data.get(data.position());
                data.position(data.limit());
                if (first == 'w') {
                    // A reply far larger than the sockets hold: most of it waits in the queue.
                    connection.write(ByteBuffer.allocate(16 * 1024 * 1024));
                    return;
                }
                heldCalls.incrementAndGet();
                try {
                    ExecutorHandOnTest.this.release.await(60, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        SocketServer server = this.fixture.start(List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)),
                ServerFixture.tcp("executed").handlerExecutor(this.executor).maxPendingWriteBytes(64L * 1024 * 1024).handler(handler).build());
        Socket writer = this.fixture.connectWithSmallWindow(server, "executed");
        writer.getOutputStream().write('w');
        InputStream replies = writer.getInputStream();
        byte[] chunk = new byte[4096];
        long total = replies.read(chunk);
        // The executor's threads all held, each keeping the memory lent for its turn.
        List<Socket> holders = new ArrayList<>();
        for (int i = 0; i < HELD; i++) {
            Socket holder = this.fixture.connect(server, "executed");
            holder.getOutputStream().write('h');
            holders.add(holder);
        }
        await(() -> heldCalls.get() == HELD, HELD + " handler calls held");
        // Room to write, enough that the server's socket reports it: the writer's next turn runs on a thread lent no memory.
        total += ServerFixture.readCount(replies, 4L * 1024 * 1024);
        Thread.sleep(200);
        Thread worker = workerThread();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getThreadCpuTime(worker.getId());
        long tasksBefore = this.tasks.get();
        Thread.sleep(1_000);
        long spent = threads.getThreadCpuTime(worker.getId()) - before;
        long handedOver = this.tasks.get() - tasksBefore;
        assertThat(TimeUnit.NANOSECONDS.toMillis(spent)).as("the worker's processor time in a second, nothing to do but wait for room")
                .isLessThan(50);
        assertThat(handedOver).as("turns handed to the executor in that second").isLessThan(100);
        // Released, everything goes on: the writer gets the rest of its reply.
        this.release.countDown();
        long rest = 16L * 1024 * 1024 - total;
        assertThat(ServerFixture.readCount(replies, rest)).isEqualTo(rest);
        for (Socket holder : holders) {
            holder.close();
        }
    }

    private static Thread workerThread() throws IOException {
        return Thread.getAllStackTraces().keySet().stream().filter((thread) -> thread.getName().startsWith("sockstate-default-"))
                .findFirst().orElseThrow(() -> new IOException("no worker thread"));
    }
}
