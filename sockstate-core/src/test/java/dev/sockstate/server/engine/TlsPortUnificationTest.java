package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.sockstate.server.Connection;
import dev.sockstate.server.tls.Tls;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One port for TLS and plaintext on the real backend: the first bytes decide, a plaintext connection
 * reaches the handler without a TLS session and is not counted as a handshake, a TLS one as on any
 * TLS listener; a TLS-only listener refuses plaintext with a TLS alert.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsPortUnificationTest {

    private final TlsFixture fixture;

    TlsPortUnificationTest() throws Exception {
        this.fixture = new TlsFixture();
    }

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    @Test
    void aListenerServingPlaintextServesAPlainClientAndATlsClientOnOnePort() throws Exception {
        Sessions handler = new Sessions();
        SocketServer server = this.fixture.start(this.fixture.serverTls().withPlaintextServed(true), handler);
        Socket plain = this.fixture.plain(server);
        assertThat(TlsFixture.echo(plain, "plain hello")).isEqualTo("plain hello");
        assertThat(TlsFixture.echo(plain, "and more")).isEqualTo("and more");
        SSLSocket secure = this.fixture.client(server, "client", "TLSv1.3");
        assertThat(TlsFixture.echo(secure, "secure hello")).isEqualTo("secure hello");
        assertThat(handler.seen).containsExactly("plaintext", "TLSv1.3");
        assertThat(this.fixture.handshakes).as("handshakes counted").containsExactly("ok");
        assertThat(this.fixture.plaintext.get()).as("plaintext connections counted").isEqualTo(1);
        plain.shutdownOutput();
        assertThat(plain.getInputStream().read()).as("a plain hang-up closes as on a plaintext listener").isEqualTo(-1);
        ServerFixture.await(() -> handler.closed.get() == 1, "the plain connection closed");
        assertThat(this.fixture.handshakes).as("a plaintext connection's close is no failed handshake").containsExactly("ok");
    }

    @Test
    void opensslSpeaksTlsAndAPlainClientPlaintextToOnePort() throws Exception {
        String openssl = TlsOpensslTest.openssl();
        Sessions handler = new Sessions();
        SocketServer server = this.fixture.start(this.fixture.serverTls().withPlaintextServed(true), handler);
        int port = server.listener("tls").portNumber();
        Process client = new ProcessBuilder(openssl, "s_client", "-connect", "127.0.0.1:" + port, "-CAfile",
                this.fixture.certificates.caPem().toString(), "-verify_return_error", "-quiet")
                // (s_client's remarks go to its standard error: what it reads back is alone on its output.)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            client.getOutputStream().write("from openssl\n".getBytes(StandardCharsets.US_ASCII));
            client.getOutputStream().flush();
            byte[] echo = client.getInputStream().readNBytes("from openssl\n".length());
            assertThat(new String(echo, StandardCharsets.US_ASCII)).isEqualTo("from openssl\n");
        }
        finally {
            client.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        assertThat(TlsFixture.echo(this.fixture.plain(server), "from a plain client")).isEqualTo("from a plain client");
        assertThat(handler.seen).containsExactly("TLSv1.3", "plaintext");
    }

    @Test
    void aTlsOnlyListenerRefusesPlaintextWithAnAlert() throws Exception {
        SocketServer server = this.fixture.start(this.fixture.serverTls(), new Sessions());
        try (Socket plain = this.fixture.plain(server)) {
            plain.getOutputStream().write("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] answer = TlsFixture.readAll(plain.getInputStream());
            assertThat(answer).as("what the plaintext client got").isNotEmpty();
            assertThat(answer[0]).as("a TLS alert record").isEqualTo((byte) 21);
        }
        assertThat(this.fixture.handshakes).containsExactly("plaintext");
    }

    @Test
    void onlyAServersTlsThatNeedsNoClientCertificateServesPlaintext() {
        assertThatIllegalStateException().isThrownBy(() -> Tls.client(() -> null).withPlaintextServed(true))
                .withMessageContaining("Only a server's TLS");
        assertThat(Tls.client(() -> null).withPlaintextServed(false).plaintextServed()).isFalse();
        Tls server = Tls.server(() -> null);
        assertThatIllegalStateException().isThrownBy(() -> server.withClientAuth(Tls.ClientAuth.NEED).withPlaintextServed(true))
                .withMessageContaining("cannot serve plaintext beside TLS");
        assertThatIllegalStateException().isThrownBy(() -> server.withPlaintextServed(true).withClientAuth(Tls.ClientAuth.NEED))
                .withMessageContaining("cannot need client certificates");
        assertThat(server.withPlaintextServed(true).withClientAuth(Tls.ClientAuth.WANT).plaintextServed()).isTrue();
    }

    /** Echoes, and keeps each connection's TLS protocol as it opened ("plaintext" without a session). */
    private static final class Sessions extends EchoHandler {

        final Queue<String> seen = new ConcurrentLinkedQueue<>();

        @Override
        public void onOpen(Connection connection) throws Exception {
            this.seen.add((connection.tlsSession() != null) ? connection.tlsSession().getProtocol() : "plaintext");
            super.onOpen(connection);
        }
    }
}
