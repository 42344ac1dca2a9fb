package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.port.OpenDescriptors;
import dev.sockstate.server.Connection;
import dev.sockstate.server.SocketOptions;
import dev.sockstate.server.tls.Tls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Peers that do not play by the rules, each against a TLS listener on the real backend: the
 * connection is closed and counted by the observer with a reason, its handler (when the handshake
 * had not succeeded) hears nothing, the server then still serves a good client, and no descriptor is
 * left behind.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsBadInputTest {

    private final TlsFixture fixture;

    private final TlsFixture.Recording handler = new TlsFixture.Recording();

    private SocketServer server;

    private int descriptors;

    private int calls;

    /** The key a good client brings: none, or "client" where the listener needs one. */
    private String goodKey;

    TlsBadInputTest() throws Exception {
        this.fixture = new TlsFixture();
    }

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    /** Starts the server, serves one good client, and takes the baseline of descriptors and handler calls. */
    private void start(Tls tls) throws Exception {
        OpenDescriptors.warmUpJdkSockets();
        this.server = this.fixture.start(tls, this.handler);
        goodClientIsServed();
        this.descriptors = OpenDescriptors.count();
        this.calls = this.handler.calls();
        this.fixture.handshakes.clear();
    }

    private void goodClientIsServed() throws Exception {
        int before = OpenDescriptors.count();
        try (SSLSocket client = this.fixture.client(this.server, this.goodKey, "TLSv1.3")) {
            assertThat(TlsFixture.echo(client, "good client")).isEqualTo("good client");
        }
        ServerFixture.await(() -> this.server.listener("tls").activeConnections() == 0, "the good client's connection closed");
        // The listener counts a connection gone when its socket closes; its handler hears onClose after.
        ServerFixture.await(() -> this.handler.closed.get() == this.handler.opened.get(), "the good client's handler told of the close");
        // A closed socket's descriptor may outlive its connection a moment (on nio the selector
        // releases it at its next select): the baseline is taken once the good client's are gone.
        ServerFixture.await(() -> OpenDescriptors.count() <= before, "the good client's descriptors released");
    }

    /** The bad connection is gone: the server serves a good client, and holds no descriptor more than before. */
    private void serverIsUnharmed() throws Exception {
        ServerFixture.await(() -> this.server.listener("tls").activeConnections() == 0, "the bad connection closed");
        goodClientIsServed();
        ServerFixture.await(() -> OpenDescriptors.count() == this.descriptors, "every descriptor released");
    }

    private void handlerHeardNothing() {
        assertThat(this.handler.calls()).as("no onOpen, onError or onClose for a failed handshake").isEqualTo(this.calls);
    }

    private byte[] clientHello() throws Exception {
        return new TlsPeer(this.fixture.certificates.context(null), "TLSv1.3").produce();
    }

    /** Reads until the server ends the connection: an end of stream or a reset. */
    private static void drain(Socket socket) {
        try {
            InputStream in = socket.getInputStream();
            byte[] chunk = new byte[1024];
            while (in.read(chunk) >= 0) {
                // alerts, if any
            }
        }
        catch (IOException ex) {
            // reset by the server's abort
        }
    }

    @Test
    void plaintextToATlsPortIsClosedAsPlaintext() throws Exception {
        start(this.fixture.serverTls());
        try (Socket plain = this.fixture.plain(this.server)) {
            plain.getOutputStream().write("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            drain(plain);
        }
        ServerFixture.await(() -> !this.fixture.handshakes.isEmpty(), "the handshake reported");
        assertThat(this.fixture.handshakes).containsExactly("plaintext");
        handlerHeardNothing();
        serverIsUnharmed();
    }

    @Test
    void aMalformedHelloFailsAsAProtocolError() throws Exception {
        start(this.fixture.serverTls());
        try (Socket plain = this.fixture.plain(this.server)) {
            plain.getOutputStream().write(new byte[] {22, 3, 1, 0, 9, 1, 0, 0, 5, 'h', 'e', 'l', 'l', 'o'});
            drain(plain);
        }
        ServerFixture.await(() -> !this.fixture.handshakes.isEmpty(), "the handshake reported");
        assertThat(this.fixture.handshakes).containsExactly("protocol");
        handlerHeardNothing();
        serverIsUnharmed();
    }

    @Test
    void aHandshakeTruncatedByTheClientsCloseIsCountedAsClosed() throws Exception {
        start(this.fixture.serverTls());
        byte[] hello = clientHello();
        try (Socket plain = this.fixture.plain(this.server)) {
            plain.getOutputStream().write(Arrays.copyOf(hello, hello.length / 2));
            plain.shutdownOutput();
            drain(plain);
        }
        ServerFixture.await(() -> !this.fixture.handshakes.isEmpty(), "the handshake reported");
        assertThat(this.fixture.handshakes).containsExactly("closed");
        handlerHeardNothing();
        serverIsUnharmed();
    }

    @Test
    void aHandshakeResetByTheClientIsCountedAsClosed() throws Exception {
        start(this.fixture.serverTls());
        byte[] hello = clientHello();
        Socket plain = this.fixture.plain(this.server);
        plain.getOutputStream().write(Arrays.copyOf(hello, 20));
        plain.setSoLinger(true, 0);
        plain.close();
        ServerFixture.await(() -> !this.fixture.handshakes.isEmpty(), "the handshake reported");
        assertThat(this.fixture.handshakes).containsExactly("closed");
        handlerHeardNothing();
        serverIsUnharmed();
    }

    /**
     * What made a server buffer 16 MB before its handshake through the SNI path (Netty's
     * CVE-2023-34462): a ClientHello whose handshake header declares 16 MB, sent on in full records,
     * to a listener that chooses its context by server name and so holds the hello before any engine
     * sees it. No more than a ClientHello's 64 KiB is held: then the hello goes to the default
     * engine, which refuses its length, and the connection closes long before 16 MB are sent.
     */
    @Test
    void aClientHelloDeclaringSixteenMebibytesOnTheServerNamePathIsRefusedAtTheHellosLimit() throws Exception {
        start(this.fixture.serverTls().withServerNameTls("alpha.test", this.fixture.certificates.server("alpha")));
        byte[] record = new byte[5 + 16384];
        record[0] = 22;
        record[1] = 3;
        record[2] = 1;
        record[3] = 0x40;
        long sent = 0;
        try (Socket plain = this.fixture.plain(this.server)) {
            OutputStream out = plain.getOutputStream();
            byte[] first = record.clone();
            first[5] = 1;
            first[6] = (byte) 0xff;
            first[7] = (byte) 0xff;
            first[8] = (byte) 0xff;
            first[9] = 3;
            first[10] = 3;
            try {
                out.write(first);
                sent += first.length;
                while (sent < (16L << 20)) {
                    out.write(record);
                    sent += record.length;
                }
            }
            catch (IOException ex) {
                // reset by the server's close
            }
            drain(plain);
        }
        assertThat(sent).as("bytes sent before the server ended the connection").isLessThan(16L << 20);
        ServerFixture.await(() -> !this.fixture.handshakes.isEmpty(), "the handshake reported");
        assertThat(this.fixture.handshakes).containsExactly("protocol");
        handlerHeardNothing();
        serverIsUnharmed();
    }

    @Test
    void aClientThatStallsMidHandshakeIsClosedAtTheTimeout() throws Exception {
        start(this.fixture.serverTls().withHandshakeTimeout(Duration.ofMillis(300)));
        byte[] hello = clientHello();
        long started = System.nanoTime();
        try (Socket stalled = this.fixture.plain(this.server); Socket silent = this.fixture.plain(this.server)) {
            stalled.getOutputStream().write(Arrays.copyOf(hello, hello.length - 10));
            drain(stalled);
            drain(silent);
        }
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("closed soon after the limit").isLessThan(Duration.ofSeconds(5));
        ServerFixture.await(() -> this.fixture.handshakes.size() == 2, "both handshakes reported");
        assertThat(this.fixture.handshakes).containsExactly("timeout", "timeout");
        handlerHeardNothing();
        serverIsUnharmed();
    }

    @Test
    void garbageAfterTheHandshakeAbortsTheConnectionAndItsHandlerHearsWhy() throws Exception {
        start(this.fixture.serverTls());
        for (boolean recordLike : new boolean[] {true, false}) {
            Socket plain = this.fixture.plain(this.server);
            SSLSocket client = (SSLSocket) this.fixture.certificates.context(null).getSocketFactory()
                    .createSocket(plain, "localhost", plain.getPort(), false);
            assertThat(TlsFixture.echo(client, "before the garbage")).isEqualTo("before the garbage");
            byte[] garbage = new byte[64];
            new Random(11).nextBytes(garbage);
            if (recordLike) {
                // An application data record whose content no key opens.
                System.arraycopy(new byte[] {23, 3, 3, 0, 59}, 0, garbage, 0, 5);
            }
            else {
                garbage[0] = 'x';
            }
            plain.getOutputStream().write(garbage);
            drain(plain);
            plain.close();
        }
        ServerFixture.await(() -> this.handler.errors.size() == 2 && this.handler.closed.get() == 3, "both handlers told");
        assertThat(this.handler.errors).allSatisfy((error) -> assertThat(error).isInstanceOf(javax.net.ssl.SSLException.class));
        assertThat(this.fixture.handshakes).as("the handshakes themselves succeeded").containsExactly("ok", "ok");
        serverIsUnharmed();
    }

    @Test
    void aTls12RenegotiationIsRefusedByClosingTheConnection() throws Exception {
        start(this.fixture.serverTls());
        SSLSocket client = this.fixture.client(this.server, null, "TLSv1.2");
        assertThat(TlsFixture.echo(client, "before")).isEqualTo("before");
        assertThatExceptionOfType(IOException.class).isThrownBy(() -> {
            client.startHandshake();
            TlsFixture.echo(client, "after a renegotiation");
        });
        client.close();
        ServerFixture.await(() -> this.fixture.handshakes.size() == 2, "the refusal reported");
        assertThat(this.fixture.handshakes).containsExactly("ok", "renegotiation");
        ServerFixture.await(() -> this.handler.closed.get() == 2, "the handler told of the close");
        assertThat(this.handler.errors).singleElement().satisfies((error) -> assertThat(error).hasMessageContaining("renegotiation"));
        serverIsUnharmed();
    }

    @Test
    void aRefusedRenegotiationsAlertFollowsTheRepliesStillQueuedBeforeTheConnectionCloses() throws Exception {
        int reply = 256 * 1024;
        // A small send buffer on the server and a small window on the client: most of the reply waits in
        // the connection's queue when the refusal's alert is written behind it.
        TlsFixture.Recording bulk = bulkReplies(reply);
        SSLSocket client = renegotiatingClient(bulk, 8192);
        try (client) {
            client.setSoTimeout(10_000);
            // The client asks to renegotiate while the reply is on its way; its reads begin once the refusal was made.
            client.startHandshake();
            ServerFixture.await(() -> this.fixture.handshakes.size() == 2, "the refusal reported");
            InputStream in = client.getInputStream();
            byte[] chunk = new byte[16 * 1024];
            long read = 0;
            IOException end = null;
            try {
                for (int n; (n = in.read(chunk)) >= 0;) {
                    read += n;
                }
            }
            catch (IOException ex) {
                end = ex;
            }
            assertThat(read).as("the reply's bytes the client read").isEqualTo(reply);
            assertThat(end).as("how the connection ended for the client").isInstanceOf(javax.net.ssl.SSLException.class)
                    .hasMessageContaining("alert");
        }
        assertThat(this.fixture.handshakes).containsExactly("ok", "renegotiation");
        handlerHeardOfTheRefusalOnce(bulk);
    }

    @Test
    void aFailedConnectionWhosePeerReadsNothingEndsOnceItsLastWordsWaitedASecond() throws Exception {
        TlsFixture.Recording bulk = bulkReplies(1024 * 1024);
        SSLSocket client = renegotiatingClient(bulk, 4096);
        try (client) {
            long asked = System.nanoTime();
            client.startHandshake();
            // The client reads nothing: the reply and the alert behind it never leave the server's queue.
            ServerFixture.await(() -> this.fixture.handshakes.size() == 2, "the refusal reported");
            ServerFixture.await(() -> this.server.listener("tls").activeConnections() == 0, "the connection ended");
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
            assertThat(waited).as("how long the unread alert held the connection, in ms")
                    .isBetween(TcpConnection.LAST_WORDS_MILLIS, TcpConnection.LAST_WORDS_MILLIS + 3_000);
            handlerHeardOfTheRefusalOnce(bulk);
        }
    }

    @Test
    void aPeerThatResetsWhileTheAlertWaitsEndsTheConnectionAndTheHandlerHearsOfTheFailureOnce() throws Exception {
        TlsFixture.Recording bulk = bulkReplies(1024 * 1024);
        SSLSocket client = renegotiatingClient(bulk, 4096);
        client.startHandshake();
        ServerFixture.await(() -> this.fixture.handshakes.size() == 2, "the refusal reported");
        long reset = System.nanoTime();
        client.setSoLinger(true, 0);
        client.close();
        ServerFixture.await(() -> this.server.listener("tls").activeConnections() == 0, "the connection ended");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - reset)).as("how long the reset connection lasted, in ms")
                .isLessThan(TcpConnection.LAST_WORDS_MILLIS);
        handlerHeardOfTheRefusalOnce(bulk);
    }

    /** The handler was told of the refused renegotiation once, then of the close. */
    private static void handlerHeardOfTheRefusalOnce(TlsFixture.Recording bulk) throws InterruptedException {
        ServerFixture.await(() -> bulk.closed.get() == 1, "the handler told of the close");
        assertThat(bulk.errors).as("what the handler heard").singleElement()
                .satisfies((error) -> assertThat(error).hasMessageContaining("renegotiation"));
    }

    /** @return a handler that answers any bytes with this many, on a listener with a 16 KB send buffer (started) */
    private TlsFixture.Recording bulkReplies(int reply) throws Exception {
        TlsFixture.Recording bulk = new TlsFixture.Recording() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                data.position(data.limit());
                connection.write(ByteBuffer.allocate(reply));
            }
        };
        this.server = this.fixture.start(this.fixture.serverTls(), bulk,
                (listener) -> listener.socketOptions(new SocketOptions(true, 0, 16 * 1024, null, null, null, 0, -1)));
        return bulk;
    }

    /** @return a TLS 1.2 client with a small window (its receive buffer) that asked for the handler's reply and has not read it */
    private SSLSocket renegotiatingClient(TlsFixture.Recording bulk, int window) throws Exception {
        SSLSocket client = (SSLSocket) this.fixture.certificates.context(null).getSocketFactory().createSocket();
        client.setReceiveBufferSize(window);
        client.connect(TlsFixture.address(this.server), 5000);
        client.setEnabledProtocols(new String[] {"TLSv1.2"});
        client.getOutputStream().write("send me a lot\n".getBytes(StandardCharsets.US_ASCII));
        client.getOutputStream().flush();
        ServerFixture.await(() -> !bulk.connections.isEmpty(), "the connection opened");
        return client;
    }

    @Test
    void underNeedAClientWithoutACertificateIsCountedAndTheHandlerHearsNothing() throws Exception {
        this.goodKey = "client";
        start(this.fixture.serverTls().withClientAuth(Tls.ClientAuth.NEED));
        SSLSocket client = this.fixture.client(this.server, null, "TLSv1.3");
        assertThatExceptionOfType(IOException.class).isThrownBy(() -> TlsFixture.echo(client, "no certificate"));
        client.close();
        ServerFixture.await(() -> !this.fixture.handshakes.isEmpty(), "the handshake reported");
        assertThat(this.fixture.handshakes).containsExactly("certificate");
        handlerHeardNothing();
        serverIsUnharmed();
    }
}
