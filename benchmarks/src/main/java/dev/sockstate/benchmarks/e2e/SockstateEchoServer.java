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
 * listener and its connections, in level one-shot or exclusive edge mode; or, sharded, one server
 * with a single-worker group per worker, their listeners sharing the port through SO_REUSEPORT. The system property
 * {@code sockstate.batch-size} overrides the group's dequeue batch size, and {@code sockstate.count-dequeues}
 * prints how dequeue calls went when the server stops (pass them in {@code SERVER_JVM_OPTS}).
 */
final class SockstateEchoServer implements EchoServer {

    private final boolean exclusiveEdge;

    private final boolean sharded;

    private final List<SocketServer> servers = new java.util.ArrayList<>();

    private final DequeueCounter dequeues = new DequeueCounter();

    SockstateEchoServer(boolean exclusiveEdge, boolean sharded) {
        this.exclusiveEdge = exclusiveEdge;
        this.sharded = sharded;
    }

    @Override
    public int start(int workers) {
        if (!this.sharded) {
            return startServer(workers, 0, false);
        }
        int port = startServer(1, 0, true);
        for (int i = 1; i < workers; i++) {
            startServer(1, port, true);
        }
        return port;
    }

    private int startServer(int workers, int port, boolean reusePort) {
        ConnectionHandler echo = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                connection.write(data);
            }
        };
        ListenerSettings listener = ListenerSettings.tcp("echo").address(InetAddress.getLoopbackAddress()).port(port)
                .backlog(4096).reusePort(reusePort).maxConnections(30_000).exclusiveEdge(this.exclusiveEdge).handler(echo)
                .build();
        WorkerGroupSettings defaults = WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, workers);
        WorkerGroupSettings group = new WorkerGroupSettings(defaults.name(), workers,
                Integer.getInteger("sockstate.batch-size", defaults.batchSize()), defaults.dequeueTimeout(),
                defaults.readBufferSize(), defaults.threadNamePrefix());
        SocketServer server = new SocketServer(Backends.select("epoll"), List.of(group), List.of(listener),
                Boolean.getBoolean("sockstate.count-dequeues") ? this.dequeues : ServerObserver.NONE);
        server.start();
        this.servers.add(server);
        return server.listener("echo").port();
    }

    @Override
    public void close() {
        for (SocketServer server : this.servers) {
            server.stop(Duration.ofSeconds(2));
        }
        if (Boolean.getBoolean("sockstate.count-dequeues")) {
            System.err.println(this.dequeues);
        }
    }
}
