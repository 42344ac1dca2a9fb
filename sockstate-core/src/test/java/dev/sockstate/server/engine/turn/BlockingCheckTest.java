package dev.sockstate.server.engine.turn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sockstate.port.Backends;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.observer.ServerObserver;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The blocking check sees what it is there for: a handler that sleeps or waits on a worker thread is
 * reported, naming the thread and the call; the same handler on a handler executor's thread, and a
 * worker serving without blocking, are not.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BlockingCheckTest {

    @Test
    @BlocksWorkers("its handlers block a worker to show that the check sees it")
    void aHandlerThatSleepsOrWaitsOnAWorkerIsReportedWithTheCallAndTheThread() throws Exception {
        requireCheck();
        ConnectionHandler blocking = (connection, data) -> {
            Thread.sleep(1);
            new CountDownLatch(1).await(1, TimeUnit.MILLISECONDS);
            connection.write(data);
        };
        echoOnce(ListenerSettings.tcp("blocking").address(InetAddress.getLoopbackAddress()).handler(blocking).build());
        List<AssertionError> seen = BlockingCheck.seen();
        assertThat(seen).extracting(AssertionError::getMessage)
                .anySatisfy((message) -> assertThat(message).startsWith("Worker thread 'sockstate-").contains("java.lang.Thread.sleep"))
                .anySatisfy((message) -> assertThat(message).contains("Unsafe#park"));
    }

    @Test
    void theSameHandlerOnAHandlerExecutorAndAWorkerThatOnlyServesAreNotReported() throws Exception {
        requireCheck();
        ExecutorService executor = Executors.newFixedThreadPool(2);
        try {
            ConnectionHandler blocking = (connection, data) -> {
                Thread.sleep(1);
                connection.write(data);
            };
            echoOnce(ListenerSettings.tcp("offloaded").address(InetAddress.getLoopbackAddress()).handlerExecutor(executor)
                    .handler(blocking).build());
            echoOnce(ListenerSettings.tcp("echo").address(InetAddress.getLoopbackAddress())
                    .handler((connection, data) -> connection.write(data)).build());
        }
        finally {
            executor.shutdownNow();
        }
        assertThat(BlockingCheck.seen()).isEmpty();
    }

    private static void requireCheck() {
        if (System.getenv("CI") != null) {
            assertThat(BlockingCheck.isOn()).as("the blocking check, on in the build's default test run").isTrue();
        }
        assumeTrue(BlockingCheck.isOn(), "the blocking check is off: -D" + BlockingCheck.PROPERTY + "=true turns it on");
    }

    /** Serves one echo on a server of one worker with the listener, and stops it. */
    private static void echoOnce(ListenerSettings listener) throws Exception {
        SocketServer server = new SocketServer(Backends.select("auto"), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)),
                List.of(listener), ServerObserver.NONE);
        server.start();
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.listener(listener.name()).portNumber())) {
            client.setSoTimeout(10_000);
            client.getOutputStream().write("ping".getBytes());
            InputStream in = client.getInputStream();
            assertThat(in.readNBytes(4)).isEqualTo("ping".getBytes());
        }
        finally {
            server.stop(Duration.ofSeconds(5));
        }
    }
}
