package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.tls.Tls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.security.auth.x500.X500Principal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What real TLS peers send that a server must take as it comes: a client that streams right after
 * its Finished while the server still checks its certificate, a ClientHello split over records, and
 * many clients that trickle a handshake, which the handshake timeout closes while others are served.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsPeerInputTest {

    private final TlsFixture fixture;

    private final ExecutorService threads = Executors.newCachedThreadPool();

    TlsPeerInputTest() throws Exception {
        this.fixture = new TlsFixture();
    }

    @AfterEach
    void stop() throws Exception {
        this.threads.shutdownNow();
        this.fixture.close();
    }

    @Test
    void underNeedAClientThatStreams80KiBRightAfterItsFinishedWhileItsCertificateIsCheckedIsServedWhole() throws Exception {
        CountDownLatch checking = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        SSLContext holding = this.fixture.certificates.context("server", UnaryOperator.identity(), (trust) -> new HeldCheck(trust,
                checking, release));
        AtomicReference<TcpConnection> connection = new AtomicReference<>();
        TlsFixture.Recording handler = new TlsFixture.Recording() {

            @Override
            public void onOpen(Connection opened) throws Exception {
                super.onOpen(opened);
                connection.set((TcpConnection) opened);
            }
        };
        SocketServer server = this.fixture.start(Tls.server(() -> holding).withClientAuth(Tls.ClientAuth.NEED), handler);
        SSLSocket client = this.fixture.client(server, "client", "TLSv1.3");
        // A TLS 1.3 client's handshake is over once it sent its Finished; it streams at once (syslog, bulk ingest).
        client.startHandshake();
        assertThat(checking.await(10, TimeUnit.SECONDS)).as("the server checks the client's certificate").isTrue();
        byte[] stream = new byte[80 * 1024];
        Arrays.fill(stream, (byte) 's');
        Future<?> writing = this.threads.submit(() -> {
            OutputStream out = client.getOutputStream();
            out.write(stream);
            out.flush();
            return null;
        });
        writing.get(10, TimeUnit.SECONDS);
        // What arrived while the check runs waits: the server reads it once the check is over.
        ServerFixture.await(() -> !this.fixture.handshakes.isEmpty() || serverHoldsInput(server), "the server stopped reading, or failed");
        release.countDown();
        assertThat(TlsFixture.readFully(client.getInputStream(), stream.length)).as("the stream echoed whole").isEqualTo(stream);
        assertThat(this.fixture.handshakes).containsExactly("ok");
        assertThat(connection.get()).isNotNull();
    }

    @Test
    void aClientHelloSplitOverTwoRecordsGetsTheCertificateOfTheNameItAsksFor() throws Exception {
        Tls tls = this.fixture.serverTls().withServerNameTls("alpha.test", this.fixture.certificates.server("alpha"));
        SocketServer server = this.fixture.start(tls, new TlsFixture.Recording());
        for (String protocol : List.of("TLSv1.3", "TLSv1.2")) {
            SSLEngine engine = this.fixture.certificates.context(null).createSSLEngine("alpha.test", 443);
            engine.setUseClientMode(true);
            engine.setEnabledProtocols(new String[] {protocol});
            SSLParameters parameters = engine.getSSLParameters();
            parameters.setServerNames(List.of(new SNIHostName("alpha.test")));
            engine.setSSLParameters(parameters);
            try (Socket socket = this.fixture.plain(server)) {
                handshake(engine, socket, true);
                assertThat(engine.getSession().getPeerPrincipal()).as("the certificate served over %s", protocol)
                        .isEqualTo(new X500Principal("CN=alpha.test"));
            }
        }
    }

    @Test
    void clientsThatTrickleTheirHandshakeAreClosedByTheHandshakeTimeoutWhileOthersAreServed() throws Exception {
        Tls tls = this.fixture.serverTls().withHandshakeTimeout(Duration.ofMillis(800));
        SocketServer server = this.fixture.start(tls, new TlsFixture.Recording());
        byte[] hello = clientHello();
        List<Future<Long>> tricklers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            Socket socket = this.fixture.plain(server);
            tricklers.add(this.threads.submit(() -> trickle(socket, hello)));
        }
        ServerFixture.await(() -> server.listener("tls").activeConnections() == 20, "twenty handshakes under way");
        SSLSocket real = this.fixture.client(server, null, "TLSv1.3");
        assertThat(TlsFixture.echo(real, "served")).as("a real client meanwhile").isEqualTo("served");
        for (Future<Long> trickler : tricklers) {
            assertThat(Duration.ofNanos(trickler.get(10, TimeUnit.SECONDS))).as("how long a trickler was kept")
                    .isBetween(Duration.ofMillis(700), Duration.ofMillis(3000));
        }
        ServerFixture.await(() -> server.listener("tls").activeConnections() == 1, "only the real client is left");
        assertThat(this.fixture.handshakes).filteredOn("timeout"::equals).hasSize(20);
    }

    /** @return whether a connection of the server stopped reading (its engine's tasks run) */
    private static boolean serverHoldsInput(SocketServer server) {
        return server.connections().stream().anyMatch(TcpConnection::holdsInput);
    }

    /** Sends a byte of the hello every 50 ms until the server closes; @return how long that took */
    private static long trickle(Socket socket, byte[] hello) {
        long start = System.nanoTime();
        try {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            socket.setSoTimeout(50);
            for (int i = 0; i < hello.length && i < 200; i++) {
                out.write(hello[i]);
                out.flush();
                try {
                    if (in.read() < 0) {
                        break;
                    }
                }
                catch (java.net.SocketTimeoutException ex) {
                    // still open: the next byte
                }
            }
        }
        catch (IOException ex) {
            // closed (or reset) by the server
        }
        return System.nanoTime() - start;
    }

    /** @return a real ClientHello record, as a JDK client sends it */
    private byte[] clientHello() throws Exception {
        SSLEngine engine = this.fixture.certificates.context(null).createSSLEngine("localhost", 443);
        engine.setUseClientMode(true);
        ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        engine.wrap(ByteBuffer.allocate(0), out);
        out.flip();
        byte[] hello = new byte[out.remaining()];
        out.get(hello);
        return hello;
    }

    /**
     * Runs a client engine's handshake over a plain socket, its first record (the ClientHello) split
     * in two records when asked.
     */
    private static void handshake(SSLEngine engine, Socket socket, boolean splitHello) throws Exception {
        socket.setSoTimeout(10_000);
        OutputStream out = socket.getOutputStream();
        InputStream in = socket.getInputStream();
        ByteBuffer netIn = ByteBuffer.allocate(engine.getSession().getPacketBufferSize() * 4);
        ByteBuffer netOut = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        ByteBuffer appIn = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize() * 2);
        boolean first = splitHello;
        engine.beginHandshake();
        for (int steps = 0; steps < 200; steps++) {
            HandshakeStatus status = engine.getHandshakeStatus();
            switch (status) {
                case NEED_WRAP -> {
                    netOut.clear();
                    engine.wrap(ByteBuffer.allocate(0), netOut);
                    netOut.flip();
                    byte[] records = new byte[netOut.remaining()];
                    netOut.get(records);
                    out.write(first ? splitFirstRecord(records) : records);
                    out.flush();
                    first = false;
                }
                case NEED_TASK -> {
                    Runnable task;
                    while ((task = engine.getDelegatedTask()) != null) {
                        task.run();
                    }
                }
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                    netIn.flip();
                    SSLEngineResult result = engine.unwrap(netIn, appIn);
                    netIn.compact();
                    if (result.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW) {
                        byte[] chunk = new byte[8192];
                        int read = in.read(chunk);
                        if (read < 0) {
                            throw new IOException("The server closed the connection during the handshake");
                        }
                        netIn.put(chunk, 0, read);
                    }
                }
                default -> {
                    return;
                }
            }
        }
        throw new AssertionError("The handshake did not end in 200 steps");
    }

    /**
     * @return the bytes with their first record's payload cut in two records of the same type and
     * version, after the random: the extensions, the server name among them, are all in the second
     */
    private static byte[] splitFirstRecord(byte[] records) {
        int length = ((records[3] & 0xff) << 8) | (records[4] & 0xff);
        int half = 4 + 2 + 32;
        ByteBuffer split = ByteBuffer.allocate(records.length + 5);
        split.put(records, 0, 3).putShort((short) half).put(records, 5, half);
        split.put(records, 0, 3).putShort((short) (length - half)).put(records, 5 + half, length - half);
        split.put(records, 5 + length, records.length - 5 - length);
        return split.array();
    }

    /** A trust manager whose check of a client's certificate waits until released. */
    private static final class HeldCheck extends X509ExtendedTrustManager {

        private final X509ExtendedTrustManager real;

        private final CountDownLatch checking;

        private final CountDownLatch release;

        HeldCheck(X509ExtendedTrustManager real, CountDownLatch checking, CountDownLatch release) {
            this.real = real;
            this.checking = checking;
            this.release = release;
        }

        private void hold() {
            this.checking.countDown();
            try {
                this.release.await(20, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            hold();
            this.real.checkClientTrusted(chain, authType, socket);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            hold();
            this.real.checkClientTrusted(chain, authType, engine);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            hold();
            this.real.checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            this.real.checkServerTrusted(chain, authType, socket);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            this.real.checkServerTrusted(chain, authType, engine);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            this.real.checkServerTrusted(chain, authType);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return this.real.getAcceptedIssuers();
        }
    }
}
