package dev.sockstate.benchmarks.e2e;

import dev.sockstate.port.Backends;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.ServerObserver;
import dev.sockstate.server.SocketServer;
import dev.sockstate.server.WorkerGroupSettings;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;

/**
 * The sockstate echo server, on {@link SocketServer} directly: one worker group shared by the
 * listener and its connections, in level one-shot or exclusive edge mode. The system property
 * {@code sockstate.batch-size} overrides the group's dequeue batch size, and {@code sockstate.count-dequeues}
 * prints how dequeue calls went when the server stops (pass them in {@code SERVER_JVM_OPTS}).
 */
final class SockstateEchoServer implements EchoServer {

    private final boolean exclusiveEdge;

    private SocketServer server;

    private final DequeueCounter dequeues = new DequeueCounter();

    SockstateEchoServer(boolean exclusiveEdge) {
        this.exclusiveEdge = exclusiveEdge;
    }

    @Override
    public int start(int workers) {
        ConnectionHandler echo = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                connection.write(data);
            }
        };
        ListenerSettings listener = ListenerSettings.tcp("echo").address(InetAddress.getLoopbackAddress()).backlog(4096)
                .maxConnections(30_000).exclusiveEdge(this.exclusiveEdge).handler(echo).build();
        WorkerGroupSettings defaults = WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, workers);
        WorkerGroupSettings group = new WorkerGroupSettings(defaults.name(), workers,
                Integer.getInteger("sockstate.batch-size", defaults.batchSize()), defaults.dequeueTimeout(),
                defaults.readBufferSize(), defaults.threadNamePrefix());
        this.server = new SocketServer(Backends.select("epoll"), List.of(group), List.of(listener),
                Boolean.getBoolean("sockstate.count-dequeues") ? this.dequeues : ServerObserver.NONE);
        this.server.start();
        return this.server.listener("echo").port();
    }

    @Override
    public void close() {
        if (this.server != null) {
            this.server.stop(Duration.ofSeconds(2));
        }
        if (Boolean.getBoolean("sockstate.count-dequeues")) {
            System.err.println(this.dequeues);
        }
    }
}
