package dev.sockstate.server.engine;

import static dev.sockstate.server.engine.ServerFixture.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.client.ClientHeartbeat;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client's heartbeat on the real backend against a real backend of the test's own: a quiet pool
 * connection is pinged through the request path (its PONG never reaches the handler nor another
 * request), one whose ping goes unanswered is aborted and connected again, and one owing a reply is
 * not pinged.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientHeartbeatTest {

    private final ServerFixture fixture = new ServerFixture();

    private final Queue<String> lines = new ConcurrentLinkedQueue<>();

    private final Queue<String> unsolicited = new ConcurrentLinkedQueue<>();

    private final AtomicInteger accepted = new AtomicInteger();

    private final AtomicInteger pings = new AtomicInteger();

    private final AtomicInteger timeouts = new AtomicInteger();

    private final AtomicInteger pingsWhileOwed = new AtomicInteger();

    private final AtomicBoolean owed = new AtomicBoolean();

    private final AtomicBoolean answered = new AtomicBoolean();

    private ServerSocket backend;

    @AfterEach
    void stop() throws IOException {
        this.fixture.close();
        if (this.backend != null) {
            this.backend.close();
        }
    }

    @Test
    void aQuietConnectionIsPingedAndItsPongReachesNeitherTheHandlerNorARequest() throws Exception {
        SocketClient client = start(true, new ClientHeartbeat(Duration.ofMillis(100), Duration.ofSeconds(2), "PING"));
        await(() -> count("PING") >= 3, "three pings on the quiet connection");
        assertThat(client.request("hello", String.class).get(5, TimeUnit.SECONDS)).isEqualTo("hello");
        assertThat(this.unsolicited).as("frames the handler heard of").isEmpty();
        assertThat(this.accepted.get()).as("connections the backend accepted").isEqualTo(1);
        assertThat(this.pings.get()).isGreaterThanOrEqualTo(3);
        assertThat(this.timeouts.get()).isZero();
    }

    @Test
    void aConnectionWhosePingGoesUnansweredIsAbortedAndConnectedAgain() throws Exception {
        start(false, new ClientHeartbeat(Duration.ofMillis(100), Duration.ofMillis(300), "PING"));
        await(() -> this.accepted.get() >= 2, "the pool to connect again after the unanswered ping");
        assertThat(this.timeouts.get()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void aConnectionThatOwesAReplyIsNotPinged() throws Exception {
        SocketClient client = start(true, new ClientHeartbeat(Duration.ofMillis(50), Duration.ofSeconds(5), "PING"));
        await(() -> count("PING") >= 1, "a first ping");
        assertThat(client.request("slow", String.class).get(5, TimeUnit.SECONDS)).isEqualTo("slow");
        // The backend answered "slow" 600 ms after it read it, reading on meanwhile: no ping came while the reply was owed.
        assertThat(this.pingsWhileOwed.get()).as("pings read while the reply was owed").isZero();
        assertThat(this.answered.get()).isTrue();
    }

    @Test
    void aHeartbeatWithoutFramingIsRefused() {
        assertThatThrownBy(() -> ClientSettings.builder("raw").address("127.0.0.1", 1)
                .heartbeat(new ClientHeartbeat(Duration.ofSeconds(1), Duration.ofSeconds(1), "PING")).build())
                .isInstanceOf(InvalidSettingException.class).hasMessageContaining("heartbeat").hasMessageContaining("framing");
    }

    private long count(String line) {
        return this.lines.stream().filter(line::equals).count();
    }

    /** Starts the test's backend and a client of one pooled connection to it, framed by lines. */
    private SocketClient start(boolean answersPings, ClientHeartbeat heartbeat) throws IOException, InterruptedException {
        this.backend = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            while (!this.backend.isClosed()) {
                try {
                    Socket peer = this.backend.accept();
                    this.accepted.incrementAndGet();
                    Thread serving = new Thread(() -> serve(peer, answersPings), "heartbeat-backend");
                    serving.setDaemon(true);
                    serving.start();
                }
                catch (IOException ex) {
                    return;
                }
            }
        }, "heartbeat-backend-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        ServerObserver observer = new ServerObserver() {

            @Override
            public ListenerObserver client(String client, ActiveCounts active) {
                return new ListenerObserver() {

                    @Override
                    public void heartbeat(boolean timedOut) {
                        (timedOut ? ClientHeartbeatTest.this.timeouts : ClientHeartbeatTest.this.pings).incrementAndGet();
                    }
                };
            }
        };
        ConnectionHandler handler = new ConnectionHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                ClientHeartbeatTest.this.unsolicited.add(StandardCharsets.US_ASCII.decode(data).toString());
            }
        };
        this.fixture.startWithClients(List.of(ClientSettings.builder("beating").address("127.0.0.1", this.backend.getLocalPort())
                .framing(Framing.line()).handler(handler).heartbeat(heartbeat).build()), observer);
        SocketClient client = this.fixture.lastStarted().client("beating");
        await(() -> client.connections().size() == 1, "the pool's connection");
        return client;
    }

    private static void write(OutputStream out, String line) throws IOException {
        synchronized (out) {
            out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        }
    }

    private void serve(Socket peer, boolean answersPings) {
        try (peer) {
            BufferedReader in = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.US_ASCII));
            OutputStream out = peer.getOutputStream();
            String line;
            while ((line = in.readLine()) != null) {
                this.lines.add(line);
                if (line.equals("PING")) {
                    if (this.owed.get()) {
                        this.pingsWhileOwed.incrementAndGet();
                    }
                    if (answersPings) {
                        write(out, "PONG");
                    }
                    continue;
                }
                if (line.equals("slow")) {
                    this.owed.set(true);
                    Thread later = new Thread(() -> {
                        try {
                            Thread.sleep(600);
                            this.owed.set(false);
                            this.answered.set(true);
                            write(out, "slow");
                        }
                        catch (IOException | InterruptedException ex) {
                            // The test ended.
                        }
                    });
                    later.setDaemon(true);
                    later.start();
                    continue;
                }
                write(out, line);
            }
        }
        catch (IOException ex) {
            // The client aborted, or the test ended.
        }
    }
}
