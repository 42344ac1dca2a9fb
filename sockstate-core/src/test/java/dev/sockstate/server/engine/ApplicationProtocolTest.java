package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.tls.Tls;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Application protocols negotiated in the TLS handshake (ALPN) on the real backend, with the JDK's
 * TLS client: the server's preference wins, a client that offers none is served without one, a
 * client that offers only others is refused with the alert and the failure counted by its reason,
 * and a listener hands each connection to the handler of its protocol.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ApplicationProtocolTest {

    private final TlsFixture fixture;

    ApplicationProtocolTest() throws Exception {
        this.fixture = new TlsFixture();
    }

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    @Test
    void theServersMostPreferredProtocolThatTheClientOffersIsChosenAndTheHandlerSeesIt() throws Exception {
        Seen handler = new Seen();
        SocketServer server = this.fixture.start(this.fixture.serverTls().withApplicationProtocols("h2", "http/1.1"), handler);
        SSLSocket client = offering(server, "http/1.1", "h2");
        assertThat(TlsFixture.echo(client, "ping")).isEqualTo("ping");
        assertThat(client.getApplicationProtocol()).as("what the client was told").isEqualTo("h2");
        assertThat(handler.protocols).containsExactly("h2");
        SSLSocket older = offering(server, "http/1.1");
        assertThat(TlsFixture.echo(older, "ping")).isEqualTo("ping");
        assertThat(handler.protocols).containsExactly("h2", "http/1.1");
    }

    @Test
    void aClientThatOffersNoProtocolIsServedWithoutOne() throws Exception {
        Seen handler = new Seen();
        SocketServer server = this.fixture.start(this.fixture.serverTls().withApplicationProtocols("mqtt"), handler);
        SSLSocket client = offering(server);
        assertThat(TlsFixture.echo(client, "ping")).isEqualTo("ping");
        assertThat(client.getApplicationProtocol()).isEmpty();
        assertThat(handler.protocols).containsExactly("none");
    }

    @Test
    void aClientThatOffersOnlyOtherProtocolsIsRefusedWithTheAlertAndTheFailureIsCountedAsSuch() throws Exception {
        Seen handler = new Seen();
        SocketServer server = this.fixture.start(this.fixture.serverTls().withApplicationProtocols("h2", "http/1.1"), handler);
        SSLSocket client = offering(server, "spdy/3");
        assertThatThrownBy(client::startHandshake).isInstanceOf(SSLHandshakeException.class)
                .hasMessageContaining("no_application_protocol");
        ServerFixture.await(() -> !this.fixture.handshakes.isEmpty(), "the refusal counted");
        assertThat(this.fixture.handshakes).containsExactly("application-protocol");
        assertThat(handler.opened.get()).as("opens the handler heard").isZero();
    }

    @Test
    void aListenerHandsEachConnectionToTheHandlerOfItsProtocolAndClosesOneWithoutAHandler() throws Exception {
        ConnectionHandler h2 = (connection, data) -> connection.write(ByteBuffer.wrap("h2 ".getBytes(StandardCharsets.US_ASCII)));
        ConnectionHandler http = (connection, data) -> connection.write(ByteBuffer.wrap("h1 ".getBytes(StandardCharsets.US_ASCII)));
        SocketServer server = this.fixture.start(this.fixture.serverTls().withApplicationProtocols("h2", "http/1.1"),
                ConnectionHandler.byApplicationProtocol(Map.of("h2", h2, "http/1.1", http), null));
        assertThat(TlsFixture.echo(offering(server, "h2"), "?  ")).isEqualTo("h2 ");
        assertThat(TlsFixture.echo(offering(server, "http/1.1"), "?  ")).isEqualTo("h1 ");
        SSLSocket none = offering(server);
        none.startHandshake();
        assertThat(none.getInputStream().read()).as("a connection no handler serves: closed").isEqualTo(-1);
    }

    @Test
    void aNameThatCannotBeAnApplicationProtocolIsRefusedNamingWhy() {
        Tls tls = Tls.server(() -> null);
        assertThatIllegalArgumentException().isThrownBy(() -> tls.withApplicationProtocols("h2", "h2"))
                .withMessageContaining("'h2' cannot be an application protocol (ALPN) name: it is named twice");
        assertThatIllegalArgumentException().isThrownBy(() -> tls.withApplicationProtocols("http 1"))
                .withMessageContaining("not printable ASCII (or a space)");
        assertThatIllegalArgumentException().isThrownBy(() -> tls.withApplicationProtocols(""))
                .withMessageContaining("it is empty");
        assertThatIllegalArgumentException().isThrownBy(() -> tls.withApplicationProtocols("x".repeat(256)))
                .withMessageContaining("longer than 255");
        assertThat(tls.withApplicationProtocols().applicationProtocols()).isEmpty();
        assertThatIllegalArgumentException().isThrownBy(() -> ConnectionHandler.byApplicationProtocol(Map.of(), null));
    }

    /** @return a connected TLS client offering those application protocols (none: no ALPN), its handshake not started */
    private SSLSocket offering(SocketServer server, String... protocols) throws Exception {
        SSLSocket client = this.fixture.client(server, "client", "TLSv1.3");
        if (protocols.length > 0) {
            SSLParameters parameters = client.getSSLParameters();
            parameters.setApplicationProtocols(protocols);
            client.setSSLParameters(parameters);
        }
        return client;
    }

    /** Echoes, and keeps the application protocol each connection opened with. */
    private static final class Seen extends EchoHandler {

        final Queue<String> protocols = new ConcurrentLinkedQueue<>();

        @Override
        public void onOpen(Connection connection) throws Exception {
            String protocol = connection.applicationProtocol();
            this.protocols.add((protocol != null) ? protocol : "none");
            super.onOpen(connection);
        }
    }
}
