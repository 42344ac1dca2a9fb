package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.OpenDescriptors;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.observer.ServerObserver;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stop whose timeout ends while a handler call still runs: the connection's last call,
 * {@code onClose}, comes after that call returned, never beside it, and the socket is released then.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StopOverrunTest {

    @Test
    void onCloseFollowsAHandlerCallThatOutlastedTheStop() throws Exception {
        assertOnCloseFollowsTheCall(true);
    }

    @Test
    void aConnectionHandedToAnExecutorThatNeverRunsTheTaskIsClosedByTheStop() throws Exception {
        OpenDescriptors.warmUpJdkSockets();
        int descriptors = OpenDescriptors.count();
        AtomicInteger closes = new AtomicInteger();
        AtomicInteger calls = new AtomicInteger();
        ConnectionHandler handler = new ConnectionHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                calls.incrementAndGet();
            }

            @Override
            public void onClose(Connection connection) {
                closes.incrementAndGet();
            }
        };
        SwallowAfterOpen executor = new SwallowAfterOpen();
        SocketServer server = new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of("default", 2)),
                List.of(ServerFixture.tcp("lost").handlerExecutor(executor).handler(handler).build()), ServerObserver.NONE);
        server.start();
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.listener("lost").portNumber())) {
            // Bytes that arrive during the open's turn are read by it; these come after, for a task of their own.
            assertThat(executor.opened.await(10, TimeUnit.SECONDS)).isTrue();
            client.getOutputStream().write(1);
            Thread.sleep(200);
            server.stop(Duration.ofMillis(200));
            ServerFixture.await(() -> closes.get() == 1, "onClose of the connection whose call never ran");
        }
        assertThat(calls.get()).as("the swallowed call never ran").isZero();
        ServerFixture.await(() -> OpenDescriptors.count() == descriptors, "every descriptor released");
    }

    /** Runs the first task (an open) and swallows every later one, as an executor shut down meanwhile would. */
    static final class SwallowAfterOpen implements java.util.concurrent.Executor {

        private final AtomicInteger tasks = new AtomicInteger();

        /** Counted down once the open's task, and with it the open's turn, is over. */
        final CountDownLatch opened = new CountDownLatch(1);

        @Override
        public void execute(Runnable task) {
            if (this.tasks.incrementAndGet() == 1) {
                new Thread(() -> {
                    task.run();
                    this.opened.countDown();
                }).start();
            }
        }
    }

    private void assertOnCloseFollowsTheCall(boolean onExecutor) throws Exception {
        OpenDescriptors.warmUpJdkSockets();
        int descriptors = OpenDescriptors.count();
        CountDownLatch inCall = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean calling = new AtomicBoolean();
        AtomicBoolean closedDuringCall = new AtomicBoolean();
        AtomicInteger closes = new AtomicInteger();
        ConnectionHandler slow = new ConnectionHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                calling.set(true);
                inCall.countDown();
                release.await(30, TimeUnit.SECONDS);
                Thread.sleep(50);
                calling.set(false);
            }

            @Override
            public void onClose(Connection connection) {
                closedDuringCall.compareAndSet(false, calling.get());
                closes.incrementAndGet();
            }
        };
        ExecutorService executor = Executors.newSingleThreadExecutor();
        ListenerSettings.Builder listener = ServerFixture.tcp("slow").handler(slow);
        if (onExecutor) {
            listener.handlerExecutor(executor);
        }
        SocketServer server = new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of("default", 2)),
                List.of(listener.build()), ServerObserver.NONE);
        server.start();
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.listener("slow").portNumber())) {
            client.getOutputStream().write(1);
            assertThat(inCall.await(10, TimeUnit.SECONDS)).isTrue();
            Thread stopper = new Thread(() -> server.stop(Duration.ofMillis(200)));
            stopper.start();
            Thread.sleep(3000);
            release.countDown();
            stopper.join(20_000);
            assertThat(stopper.isAlive()).as("the stop returned").isFalse();
            ServerFixture.await(() -> closes.get() == 1, "onClose once the call returned");
            assertThat(closedDuringCall.get()).as("onClose ran while the call still ran").isFalse();
        }
        finally {
            release.countDown();
            executor.shutdownNow();
        }
        ServerFixture.await(() -> OpenDescriptors.count() == descriptors, "every descriptor released");
    }
}
