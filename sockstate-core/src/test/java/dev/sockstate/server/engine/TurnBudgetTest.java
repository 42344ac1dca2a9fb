package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Trigger;
import dev.sockstate.server.Connection;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A turn is bounded in the work it does, whatever asks for it: reads, and the run requests of
 * another thread that keeps writing. On a group of one worker, a second connection is served while
 * a producer thread writes to the first one without pause.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TurnBudgetTest {

    private final ServerFixture fixture = new ServerFixture();

    private final ExecutorService threads = Executors.newCachedThreadPool();

    private final AtomicBoolean stopProducing = new AtomicBoolean();

    @AfterEach
    void stop() throws Exception {
        this.stopProducing.set(true);
        this.threads.shutdownNow();
        this.fixture.close();
    }

    @ParameterizedTest
    @EnumSource(value = Trigger.class)
    void aThreadThatKeepsWritingToOneConnectionDoesNotKeepTheWorkerFromTheOthers(Trigger trigger) throws Exception {
        AtomicReference<Connection> produced = new AtomicReference<>();
        CountDownLatch first = new CountDownLatch(1);
        EchoHandler handler = new EchoHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                if (data.get(data.position()) == 'p' && produced.compareAndSet(null, connection)) {
                    data.position(data.limit());
                    first.countDown();
                    return;
                }
                super.onData(connection, data);
            }
        };
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("budget").trigger(trigger).handler(handler).build());
        Socket producing = this.fixture.connect(server, "budget");
        Socket other = this.fixture.connect(server, "budget");
        producing.getOutputStream().write('p');
        assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
        Connection target = produced.get();
        Future<Long> drained = this.threads.submit(() -> drain(producing.getInputStream()));
        AtomicLong writes = new AtomicLong();
        Future<?> producer = this.threads.submit(() -> {
            // Small messages, each a write of its own (a socket call each for the owner).
            ByteBuffer chunk = ByteBuffer.allocate(1);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            // Bounded in time and in count; it keeps at most 64 KiB waiting, as a well-behaved producer does.
            while (!this.stopProducing.get() && System.nanoTime() < deadline && writes.get() < 50_000_000) {
                if (target.pendingWriteBytes() < 64 * 1024) {
                    chunk.clear();
                    target.write(chunk);
                    writes.incrementAndGet();
                }
                else {
                    Thread.onSpinWait();
                }
            }
        });
        ServerFixture.await(() -> writes.get() > 10_000, "the producer is writing");
        other.setSoTimeout(5000);
        other.getOutputStream().write('o');
        InputStream in = other.getInputStream();
        assertThat(in.read()).as("the other connection's echo, while the producer writes").isEqualTo('o');
        assertThat(producer.isDone()).as("the producer still runs").isFalse();
        this.stopProducing.set(true);
        producer.get(10, TimeUnit.SECONDS);
        producing.shutdownOutput();
        assertThat(handler.errors).isEmpty();
        drained.cancel(true);
    }

    private static long drain(InputStream in) throws Exception {
        byte[] chunk = new byte[64 * 1024];
        long total = 0;
        int read;
        while ((read = in.read(chunk)) >= 0) {
            total += read;
        }
        return total;
    }
}
