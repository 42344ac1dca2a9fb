package dev.sockstate.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backends;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.client.Backoff;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.observer.ServerObserver;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The outbound client of the reference documentation's clients page, against a backend on loopback. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ClientExampleTest {

    @Test
    void aRequestCompletesWithItsReplyFrame() throws Exception {
        try (FakeRedis redis = new FakeRedis()) {
            // tag::client[]
            ClientSettings settings = ClientSettings.builder("redis")
                    .address("127.0.0.1", redis.port())             // more addresses are tried in order: failover
                    .poolSize(2).connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(5))
                    .reconnect(new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10), 0.2))
                    .framing(Framing.line())                          // a request's reply is one frame
                    .build();
            SocketServer server = new SocketServer(Backends.select("auto"),
                    List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)), List.of(), List.of(settings),
                    ServerObserver.NONE);
            server.start();
            SocketClient client = server.client("redis");
            // end::client[]
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (client.connections().isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                // tag::request[]
                String reply = client.request("PING", String.class).get(5, TimeUnit.SECONDS);   // "+PONG"
                // end::request[]
                assertThat(reply).isEqualTo("+PONG");
            }
            finally {
                server.stop(Duration.ofSeconds(5));
            }
        }
    }

    /** Answers every line with {@code +PONG}, as Redis answers an inline PING. */
    static final class FakeRedis implements AutoCloseable {

        private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());

        FakeRedis() throws IOException {
            Thread acceptor = new Thread(this::accept, "fake-redis");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return this.socket.getLocalPort();
        }

        private void accept() {
            while (!this.socket.isClosed()) {
                try {
                    Socket connection = this.socket.accept();
                    Thread serving = new Thread(() -> serve(connection), "fake-redis-connection");
                    serving.setDaemon(true);
                    serving.start();
                }
                catch (IOException closed) {
                    return;
                }
            }
        }

        private static void serve(Socket connection) {
            try (connection) {
                BufferedReader requests = new BufferedReader(new InputStreamReader(connection.getInputStream(), StandardCharsets.UTF_8));
                OutputStream replies = connection.getOutputStream();
                while (requests.readLine() != null) {
                    replies.write("+PONG\r\n".getBytes(StandardCharsets.US_ASCII));
                    replies.flush();
                }
            }
            catch (IOException ended) {
                // the client closed the connection
            }
        }

        @Override
        public void close() throws IOException {
            this.socket.close();
        }
    }
}
