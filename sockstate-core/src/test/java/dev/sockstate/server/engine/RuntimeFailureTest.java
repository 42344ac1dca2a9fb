package dev.sockstate.server.engine;

import static dev.sockstate.server.engine.ServerFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backend;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.observer.ServerObserver;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A failure of the server's own code in a connection's turn (here, a socket call that throws what
 * no socket call should: a native binding's unexpected error, say), on the real backend: the
 * connection is aborted, and its handler hears why, as of any other failure that ends its
 * connection, before onClose; the server goes on serving.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RuntimeFailureTest {

    private final ServerFixture fixture = new ServerFixture();

    private final ExecutorService executor = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() throws IOException {
        this.fixture.close();
        this.executor.shutdownNow();
    }

    @Test
    void aFailureOfTheRuntimeInAConnectionsTurnReachesItsHandlersOnErrorBeforeItCloses() throws Exception {
        assertToldAndClosed(ServerFixture.tcp("failing"));
    }

    @Test
    void aFailureOfTheRuntimeInATurnOnAHandlerExecutorReachesItsHandlersOnErrorBeforeItCloses() throws Exception {
        assertToldAndClosed(ServerFixture.tcp("failing").handlerExecutor(this.executor));
    }

    private void assertToldAndClosed(ListenerSettings.Builder listener) throws Exception {
        AtomicBoolean armed = new AtomicBoolean();
        Backend failing = SocketCallWatch.watched(ServerFixture.backend(), (method, result, thrown) -> {
            if (method.equals("recv") && result instanceof Integer read && read > 0 && armed.getAndSet(false)) {
                throw new IllegalStateException("the runtime failed");
            }
        });
        Recording handler = new Recording();
        SocketServer server = this.fixture.start(failing, List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)),
                ServerObserver.NONE, listener.handler(handler).build());
        Socket client = this.fixture.connect(server, "failing");
        await(() -> handler.events.contains("open"), "the open");
        armed.set(true);
        client.getOutputStream().write('x');
        await(() -> handler.events.contains("close"), "the close");
        assertThat(handler.events).containsExactly("open", "error: java.lang.IllegalStateException: the runtime failed", "close");
        // The server goes on: the next connection is served.
        Socket next = this.fixture.connect(server, "failing");
        next.getOutputStream().write('y');
        assertThat(next.getInputStream().read()).isEqualTo('y');
    }

    /** Echoes, and notes each event. */
    static final class Recording implements ConnectionHandler {

        final Queue<String> events = new ConcurrentLinkedQueue<>();

        @Override
        public void onOpen(Connection connection) {
            this.events.add("open");
        }

        @Override
        public void onData(Connection connection, ByteBuffer data) {
            connection.write(data);
        }

        @Override
        public void onError(Connection connection, Throwable error) {
            this.events.add("error: " + error);
        }

        @Override
        public void onClose(Connection connection) {
            this.events.add("close");
        }
    }
}
