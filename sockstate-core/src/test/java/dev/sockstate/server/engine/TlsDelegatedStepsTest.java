package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import dev.sockstate.server.tls.Tls;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.X509ExtendedKeyManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What happens around the engine's delegated handshake steps, on the real backend: where the
 * handler is called afterwards, a FIN that arrives while one runs, and a connection that dies
 * before its step ran. A test executor holds the steps at the moment that matters.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsDelegatedStepsTest {

    private final TlsFixture fixture;

    private final HeldTasks tasks = new HeldTasks();

    private final ExecutorService handlers = Executors.newFixedThreadPool(2, (task) -> new Thread(task, "test-handler"));

    TlsDelegatedStepsTest() throws Exception {
        this.fixture = new TlsFixture();
    }

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
        this.tasks.close();
        this.handlers.shutdownNow();
    }

    @Test
    void withAHandlerExecutorTheHandlerIsCalledThereAfterADelegatedHandshakeStep() throws Exception {
        Queue<String> threads = new ConcurrentLinkedQueue<>();
        TlsFixture.Recording handler = new TlsFixture.Recording() {

            @Override
            public void onOpen(Connection connection) throws Exception {
                threads.add("onOpen on " + Thread.currentThread().getName());
                super.onOpen(connection);
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                threads.add("onData on " + Thread.currentThread().getName());
                super.onData(connection, data);
            }
        };
        Tls tls = this.fixture.serverTls().withClientAuth(Tls.ClientAuth.NEED).withTaskExecutor(this.tasks);
        SocketServer server = this.fixture.start(tls, handler, (listener) -> listener.handlerExecutor(this.handlers));
        // Every TLS 1.2 handshake, and TLS 1.3 with a client certificate, ends with a delegated step.
        for (String protocol : List.of("TLSv1.2", "TLSv1.3")) {
            SSLSocket client = this.fixture.client(server, "client", protocol);
            assertThat(TlsFixture.echo(client, protocol)).isEqualTo(protocol);
        }
        assertThat(this.fixture.handshakes).containsExactly("ok", "ok");
        assertThat(threads).hasSizeGreaterThanOrEqualTo(4).allMatch((call) -> call.endsWith(" on test-handler"));
    }

    @Test
    void aFinArrivingWhileTheLastFlightsStepRunsComesAfterThatFlightAndItsRequest() throws Exception {
        TlsFixture.Recording handler = new TlsFixture.Recording();
        Tls tls = this.fixture.serverTls().withClientAuth(Tls.ClientAuth.NEED).withTaskExecutor(this.tasks);
        SocketServer server = this.fixture.start(tls, handler);
        Socket socket = this.fixture.plain(server);
        TlsPeer peer = new TlsPeer(this.fixture.certificates.context("client"), "TLSv1.3");
        socket.getOutputStream().write(peer.produce());
        byte[] flight = peer.handshakeUpToTheLastFlight(socket);
        // The server's step for the client's certificate waits until the client sent its FIN (which the
        // server does not read meanwhile: it reads nothing while its engine's tasks run).
        CountDownLatch finSent = new CountDownLatch(1);
        this.tasks.holdUntil(finSent);
        ByteArrayOutputStream last = new ByteArrayOutputStream();
        last.write(flight);
        last.write(peer.seal("last words"));
        socket.getOutputStream().write(last.toByteArray());
        socket.shutdownOutput();
        finSent.countDown();
        assertThat(peer.consume(readToEnd(socket))).as("the request that came with the FIN is answered").isEqualTo("last words");
        assertThat(this.fixture.handshakes).containsExactly("ok");
        assertThat(handler.hangups).hasValue(1);
    }

    /**
     * With a read buffer larger than what the stage held at most while its engine's step ran, the
     * client's last flight and the requests it sent at once (TLS 1.3 lets it) came in one read, whose
     * rest over 256 KiB failed the handshake as a protocol error. The worker is held by another
     * connection's handler until all of it waits in the socket, so that one read takes it.
     */
    @Test
    @BlocksWorkers("holds a handler call while the handshake's step runs")
    void requestsThatCameInOneLargeReadWithTheLastFlightAreAnsweredAfterItsStep() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        TlsFixture.Recording handler = new TlsFixture.Recording() {

            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                if (data.remaining() == 4 && StandardCharsets.UTF_8.decode(data.duplicate()).toString().equals("hold")) {
                    data.position(data.limit());
                    release.await(20, TimeUnit.SECONDS);
                    connection.write(ByteBuffer.wrap("held".getBytes(StandardCharsets.UTF_8)));
                    return;
                }
                super.onData(connection, data);
            }
        };
        WorkerGroupSettings oneWorker = new WorkerGroupSettings("large-reads", 1, 64, Duration.ofSeconds(1), 1 << 20, "large-reads-");
        Tls tls = this.fixture.serverTls().withClientAuth(Tls.ClientAuth.NEED);
        SocketServer server = this.fixture.start(ServerFixture.backend(), oneWorker, tls, handler,
                (listener) -> listener.receiveBufferSize(4 << 20));
        SSLSocket holder = this.fixture.client(server, "client", "TLSv1.3");
        assertThat(TlsFixture.echo(holder, "open")).isEqualTo("open");
        Socket socket = this.fixture.plain(server);
        socket.setSendBufferSize(4 << 20);
        TlsPeer peer = new TlsPeer(this.fixture.certificates.context("client"), "TLSv1.3");
        socket.getOutputStream().write(peer.produce());
        byte[] flight = peer.handshakeUpToTheLastFlight(socket);
        StringBuilder requests = new StringBuilder();
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        sent.write(flight);
        for (int i = 0; requests.length() < 600 * 1024; i++) {
            String line = "request " + i + " " + "x".repeat(1000) + "\n";
            requests.append(line);
            sent.write(peer.seal(line));
        }
        // The only worker waits in the other connection's handler while all of it reaches the server's socket.
        holder.getOutputStream().write("hold".getBytes(StandardCharsets.UTF_8));
        ServerFixture.await(() -> server.listener("tls").activeConnections() == 2, "the second connection accepted");
        Thread.sleep(200);
        socket.getOutputStream().write(sent.toByteArray());
        Thread.sleep(200);
        release.countDown();
        assertThat(new String(TlsFixture.readFully(holder.getInputStream(), 4), StandardCharsets.UTF_8)).isEqualTo("held");
        StringBuilder answered = new StringBuilder();
        byte[] chunk = new byte[64 * 1024];
        while (answered.length() < requests.length()) {
            int count = socket.getInputStream().read(chunk);
            assertThat(count).as("the server answers, after " + answered.length() + " bytes (handshakes: "
                    + this.fixture.handshakes + ")").isPositive();
            answered.append(peer.consume(java.util.Arrays.copyOf(chunk, count)));
        }
        assertThat(answered.toString()).isEqualTo(requests.toString());
        assertThat(this.fixture.handshakes).containsExactly("ok", "ok");
    }

    @Test
    void theStepsOfAConnectionThatDiedBeforeTheyRanAreSkipped() throws Exception {
        AtomicInteger keyLookups = new AtomicInteger();
        Tls tls = Tls.server(this.fixture.certificates.context("server", (keys) -> new CountingKeyManager(keys, keyLookups)))
                .withTaskExecutor(this.tasks);
        SocketServer server = this.fixture.start(tls, new TlsFixture.Recording());
        assertThat(TlsFixture.echo(this.fixture.client(server, null, "TLSv1.3"), "counted")).isEqualTo("counted");
        assertThat(keyLookups).as("a served hello's step looks the key up").hasValue(1);
        keyLookups.set(0);
        int served = server.listener("tls").activeConnections();
        CountDownLatch opening = new CountDownLatch(1);
        this.tasks.holdUntil(opening);
        Socket socket = this.fixture.plain(server);
        socket.getOutputStream().write(new TlsPeer(this.fixture.certificates.context(null), "TLSv1.3").produce());
        ServerFixture.await(() -> server.listener("tls").activeConnections() == served + 1, "the connection accepted");
        socket.setSoLinger(true, 0);
        socket.close();
        if (!ServerFixture.backend().notifiesErrors()) {
            // A backend that learns a reset only by reading (nio) does not read input a stage holds: the
            // step runs, and the reset is learnt once the input is released (docs/notification-model.md: what nio does less well).
            opening.countDown();
            ServerFixture.await(() -> this.fixture.handshakes.contains("closed"), "the connection's end counted");
            ServerFixture.await(() -> server.listener("tls").activeConnections() == served, "the connection gone");
            return;
        }
        ServerFixture.await(() -> this.fixture.handshakes.contains("closed"), "the connection's end counted");
        ServerFixture.await(() -> server.listener("tls").activeConnections() == served, "the connection gone");
        opening.countDown();
        this.tasks.awaitDone();
        assertThat(keyLookups).as("the hello's step (choosing the key, signing) was not run").hasValue(0);
    }

    private static byte[] readToEnd(Socket socket) throws IOException {
        return socket.getInputStream().readAllBytes();
    }

    /** A key manager that counts the server's key lookups, the start of the hello's delegated step. */
    private static final class CountingKeyManager extends X509ExtendedKeyManager {

        private final X509ExtendedKeyManager delegate;

        private final AtomicInteger lookups;

        CountingKeyManager(X509ExtendedKeyManager delegate, AtomicInteger lookups) {
            this.delegate = delegate;
            this.lookups = lookups;
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            this.lookups.incrementAndGet();
            return this.delegate.chooseEngineServerAlias(keyType, issuers, engine);
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return this.delegate.getClientAliases(keyType, issuers);
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return this.delegate.chooseClientAlias(keyType, issuers, socket);
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return this.delegate.getServerAliases(keyType, issuers);
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return this.delegate.chooseServerAlias(keyType, issuers, socket);
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return this.delegate.getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return this.delegate.getPrivateKey(alias);
        }
    }
}
