package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * With a handler executor every callback of the handler runs there, as the user configured: open,
 * data, writable, hang-up, error and close; none on a worker, so that a blocking one never stalls
 * the other connections of a worker.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecutorCallbacksTest {

    private static final String EXECUTOR_THREAD = "test-handler-";

    private final ServerFixture fixture = new ServerFixture();

    private final AtomicInteger threadNumbers = new AtomicInteger();

    private final ExecutorService executor = Executors.newCachedThreadPool(
            (task) -> new Thread(task, EXECUTOR_THREAD + this.threadNumbers.incrementAndGet()));

    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stop() throws Exception {
        this.release.countDown();
        this.fixture.close();
        this.executor.shutdownNow();
    }

    @Test
    void everyCallbackOfAConnectionRunsOnTheHandlerExecutor() throws Exception {
        Map<String, String> threads = new ConcurrentHashMap<>();
        CountDownLatch finished = new CountDownLatch(1);
        CompletableFuture<Long> queued = new CompletableFuture<>();
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onOpen(Connection connection) throws Exception {
                threads.put("open", Thread.currentThread().getName());
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                threads.put("data", Thread.currentThread().getName());
                data.position(data.limit());
                // More than the socket takes at once while the client does not read: onWritable follows once it took the rest.
                connection.write(ByteBuffer.allocate(8 << 20));
                queued.complete(connection.pendingWriteBytes());
            }

            @Override
            public void onWritable(Connection connection) throws Exception {
                threads.put("writable", Thread.currentThread().getName());
            }

            @Override
            public void onHangup(Connection connection) throws Exception {
                threads.put("hangup", Thread.currentThread().getName());
                connection.write(ByteBuffer.wrap(new byte[] {'!'}));
                connection.close();
            }

            @Override
            public void onClose(Connection connection) {
                threads.put("close", Thread.currentThread().getName());
                finished.countDown();
            }
        };
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("exec").handlerExecutor(this.executor).handler(handler).build());
        Socket client = this.fixture.connectWithSmallWindow(server, "exec");
        client.getOutputStream().write('d');
        // The client reads only once part of the write waits: read at once, a fast client could let the
        // socket take all of it, and no onWritable would be due.
        assertThat(queued.get(10, TimeUnit.SECONDS)).as("bytes the socket did not take at once").isPositive();
        InputStream in = client.getInputStream();
        assertThat(ServerFixture.readCount(in, 8 << 20)).isEqualTo(8 << 20);
        ServerFixture.await(() -> threads.containsKey("writable"), "onWritable called");
        client.shutdownOutput();
        assertThat(in.read()).isEqualTo('!');
        assertThat(in.read()).isEqualTo(-1);
        assertThat(finished.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(threads).containsOnlyKeys("open", "data", "writable", "hangup", "close")
                .allSatisfy((callback, thread) -> assertThat(thread).as(callback).startsWith(EXECUTOR_THREAD));
    }

    @Test
    void onErrorRunsOnTheHandlerExecutor() throws Exception {
        Map<String, String> threads = new ConcurrentHashMap<>();
        CountDownLatch failed = new CountDownLatch(1);
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                data.position(data.limit());
                connection.write(ByteBuffer.allocate(8 << 20));
            }

            @Override
            public void onError(Connection connection, Throwable error) {
                super.onError(connection, error);
                threads.put("error", Thread.currentThread().getName());
                failed.countDown();
            }
        };
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("exec").handlerExecutor(this.executor).handler(handler).build());
        Socket client = this.fixture.connectWithSmallWindow(server, "exec");
        client.getOutputStream().write('d');
        ServerFixture.await(() -> server.listener("exec").activeConnections() == 1 && handler.opened.get() == 1, "opened");
        assertThat(client.getInputStream().read()).as("the reply started").isEqualTo(0);
        // A reset while most of the reply waits: the next send fails.
        client.setSoLinger(true, 0);
        client.close();
        assertThat(failed.await(10, TimeUnit.SECONDS)).as("onError called").isTrue();
        assertThat(threads.get("error")).startsWith(EXECUTOR_THREAD);
    }

    @Test
    void aBlockingOnCloseOnTheExecutorLeavesTheOnlyWorkerServingTheOthers() throws Exception {
        CountDownLatch closing = new CountDownLatch(1);
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onClose(Connection connection) {
                super.onClose(connection);
                if (closing.getCount() > 0) {
                    closing.countDown();
                    try {
                        // A slow clean-up: a database delete, an event published and acknowledged.
                        ExecutorCallbacksTest.this.release.await(30, TimeUnit.SECONDS);
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("exec").handlerExecutor(this.executor).handler(handler).build());
        Socket leaving = this.fixture.connect(server, "exec");
        Socket staying = this.fixture.connect(server, "exec");
        ServerFixture.await(() -> handler.opened.get() == 2, "both opened");
        leaving.close();
        assertThat(closing.await(10, TimeUnit.SECONDS)).as("the first onClose runs").isTrue();
        staying.setSoTimeout(5000);
        staying.getOutputStream().write('s');
        assertThat(staying.getInputStream().read()).as("the other connection's echo while onClose blocks").isEqualTo('s');
        this.release.countDown();
    }
}
