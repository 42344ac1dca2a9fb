package dev.sockstate.server.engine;

import static dev.sockstate.server.engine.ServerFixture.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.client.Backoff;
import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.tls.Tls;
import dev.sockstate.server.tls.TlsManagers;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client's TLS on the real backend: to sockstate's own TLS listener and to {@code openssl s_server},
 * the server's certificate checked against the name the client asks for.
 */
class ClientTlsTest {

    private final TlsFixture tls;

    private final ClientTest.Connects connects = new ClientTest.Connects();

    private Process opensslServer;

    private int opensslPort;

    ClientTlsTest() throws Exception {
        this.tls = new TlsFixture();
    }

    @AfterEach
    void stop() throws Exception {
        if (this.opensslServer != null) {
            this.opensslServer.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        this.tls.close();
    }

    @Test
    void aClientSpeaksTlsToATlsListenerAndChecksThatItsCertificateNamesTheHost() throws Exception {
        int port = this.tls.start(this.tls.serverTls(), new ClientTest.LineEcho(), (listener) -> listener.framing(Framing.line()))
                .listener("tls").portNumber();
        SocketClient client = startOpen(ClientSettings.builder("secure").address("localhost", port).framing(Framing.line())
                .tls(this.tls.certificates.client(null)));
        assertThat(client.request("over tls", String.class).get(10, TimeUnit.SECONDS)).isEqualTo("echo over tls");
        assertThat(client.connection().tlsSession().getProtocol()).isEqualTo("TLSv1.3");
        assertThat(this.connects.outcomes).containsExactly("connected");
    }

    @Test
    void aClientOffersItsApplicationProtocolsAndItsConnectionSeesTheOneTheListenerChose() throws Exception {
        int port = this.tls.start(this.tls.serverTls().withApplicationProtocols("mqtt", "x-legacy"), new ClientTest.LineEcho(),
                (listener) -> listener.framing(Framing.line())).listener("tls").portNumber();
        SocketClient client = startOpen(ClientSettings.builder("alpn").address("localhost", port).framing(Framing.line())
                .tls(this.tls.certificates.client(null).withApplicationProtocols("x-legacy", "mqtt")));
        assertThat(client.request("over tls", String.class).get(10, TimeUnit.SECONDS)).isEqualTo("echo over tls");
        assertThat(client.connection().applicationProtocol()).as("the listener's choice").isEqualTo("mqtt");
    }

    @Test
    void aClientOverTls13AndTls12ReadsTheGreetingOfAListenerThatSpeaksFirstAndAnswersIt() throws Exception {
        ConnectionHandler greeting = new ConnectionHandler() {
            @Override
            public void onOpen(Connection connection) {
                connection.send("ready");
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                connection.send("heard " + StandardCharsets.UTF_8.decode(data));
            }
        };
        int port = this.tls.start(this.tls.serverTls(), greeting, (listener) -> listener.framing(Framing.line()))
                .listener("tls").portNumber();
        for (String protocol : List.of("TLSv1.3", "TLSv1.2")) {
            Queue<String> heard = new ConcurrentLinkedQueue<>();
            ConnectionHandler answering = new ConnectionHandler() {
                @Override
                public void onData(Connection connection, ByteBuffer data) {
                    String line = StandardCharsets.UTF_8.decode(data).toString();
                    heard.add(line);
                    if (line.equals("ready")) {
                        connection.send("hello");
                    }
                }
            };
            SocketClient client = startOpen(ClientSettings.builder("greeted").address("localhost", port).framing(Framing.line())
                    .handler(answering).tls(this.tls.certificates.client(null).withProtocols(protocol)));
            await(() -> heard.contains("heard hello"), "the greeting read and answered, " + protocol);
            assertThat(heard).containsExactly("ready", "heard hello");
            assertThat(client.connection().tlsSession().getProtocol()).isEqualTo(protocol);
        }
    }

    @Test
    void aServerWhoseCertificateNamesAnotherHostIsRefusedAndTheFailureNamed() throws Exception {
        int port = this.tls.start(this.tls.serverTls(), new ClientTest.LineEcho(), (listener) -> listener.framing(Framing.line()))
                .listener("tls").portNumber();
        SocketClient client = start(ClientSettings.builder("misnamed").address("127.0.0.1", port).framing(Framing.line())
                .reconnect(new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(5), 0))
                .tls(this.tls.certificates.client(null).withServerName("elsewhere.test")));
        await(() -> this.connects.outcomes.contains("tls"), "the handshake to fail");
        assertThat(this.connects.outcomes).doesNotContain("connected");
        assertThatThrownBy(() -> client.request("x").get(5, TimeUnit.SECONDS)).cause().isInstanceOf(ClientException.class)
                .hasMessageContaining("Client 'misnamed' could not connect (127.0.0.1:" + port + ": ")
                .hasMessageContaining("elsewhere.test");
    }

    @Test
    void aClientSpeaksTlsToOpensslsServer(@TempDir Path directory) throws Exception {
        String openssl = TlsOpensslTest.openssl();
        Path certificate = opensslServer(openssl, directory, "-rev", "-quiet");
        SocketClient client = startOpen(ClientSettings.builder("openssl").address("localhost", this.opensslPort).framing(Framing.line())
                .tls(trusting(certificate)));
        assertThat(client.request("hello", String.class).get(10, TimeUnit.SECONDS)).isEqualTo("olleh");
        assertThat(client.request("sockstate", String.class).get(10, TimeUnit.SECONDS)).isEqualTo("etatskcos");
    }

    @Test
    void aClientIsToldTheApplicationProtocolOpensslsServerChose(@TempDir Path directory) throws Exception {
        String openssl = TlsOpensslTest.openssl();
        Path certificate = opensslServer(openssl, directory, "-rev", "-quiet", "-alpn", "mqtt");
        SocketClient client = startOpen(ClientSettings.builder("openssl").address("localhost", this.opensslPort).framing(Framing.line())
                .tls(trusting(certificate).withApplicationProtocols("h2", "mqtt")));
        assertThat(client.request("hello", String.class).get(10, TimeUnit.SECONDS)).isEqualTo("olleh");
        assertThat(client.connection().applicationProtocol()).isEqualTo("mqtt");
    }

    @Test
    void aRenegotiationThatOpensslsServerAsksForIsRefusedAndTheConnectionEndsCountingWhy(@TempDir Path directory) throws Exception {
        String openssl = TlsOpensslTest.openssl();
        Path certificate = opensslServer(openssl, directory, "-tls1_2");
        SocketClient client = startOpen(ClientSettings.builder("openssl").address("localhost", this.opensslPort).framing(Framing.line())
                .reconnect(new Backoff(Duration.ofSeconds(30), Duration.ofSeconds(30), 0)).tls(trusting(certificate)));
        assertThat(client.connection().tlsSession().getProtocol()).isEqualTo("TLSv1.2");
        assertThat(this.connects.handshakes).containsExactly("ok");
        // s_server's command 'r' sends a HelloRequest: the server asks the client to renegotiate.
        this.opensslServer.getOutputStream().write("r\n".getBytes(StandardCharsets.US_ASCII));
        this.opensslServer.getOutputStream().flush();
        await(() -> client.connections().isEmpty(), "the connection to end");
        await(() -> this.connects.handshakes.size() == 2, "the refusal counted");
        assertThat(this.connects.handshakes).containsExactly("ok", "renegotiation");
        await(() -> serverLog(directory).contains("alert"), "s_server to read the client's alert");
    }

    @Test
    void aBackendThatAcceptsButStallsTheHandshakeFailsTheConnectAtTheHandshakeTimeout() throws Exception {
        try (java.net.ServerSocket stalling = new java.net.ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            // Accepted by the system's backlog, never answered: the ClientHello goes unread.
            SocketClient client = start(ClientSettings.builder("stalled").address("127.0.0.1", stalling.getLocalPort()).framing(Framing.line())
                    .reconnect(new Backoff(Duration.ofSeconds(30), Duration.ofSeconds(30), 0))
                    .tls(this.tls.certificates.client(null).withHandshakeTimeout(Duration.ofMillis(300))));
            long start = System.nanoTime();
            await(() -> !this.connects.outcomes.isEmpty(), "the connect's end");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("when the stalled handshake ended").isLessThan(2_000);
            assertThat(this.connects.outcomes).doesNotContain("connected");
            assertThat(client.connections()).isEmpty();
        }
    }

    /**
     * Starts {@code openssl s_server} on a free port ({@link #opensslPort}) with a certificate for
     * localhost it makes: with {@code -rev -quiet} it answers each line reversed; without, it takes
     * commands on its input.
     * @return the certificate, to trust
     */
    private Path opensslServer(String openssl, Path directory, String... options) throws Exception {
        Path key = directory.resolve("key.pem");
        Path certificate = directory.resolve("cert.pem");
        Process made = new ProcessBuilder(openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key.toString(), "-out", certificate.toString(), "-subj", "/CN=localhost", "-addext",
                "subjectAltName=DNS:localhost,IP:127.0.0.1", "-days", "1").redirectErrorStream(true).start();
        made.getInputStream().readAllBytes();
        assertThat(made.waitFor()).as("openssl req's exit").isZero();
        int port = ClientTest.freePort();
        List<String> command = new java.util.ArrayList<>(List.of(openssl, "s_server", "-accept", "127.0.0.1:" + port, "-cert",
                certificate.toString(), "-key", key.toString()));
        command.addAll(List.of(options));
        this.opensslServer = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(directory.resolve("s_server.log").toFile())
                .start();
        await(() -> answers(port), "openssl s_server to listen on port " + port);
        this.opensslPort = port;
        return certificate;
    }

    private static String serverLog(Path directory) {
        try {
            return Files.readString(directory.resolve("s_server.log"));
        }
        catch (java.io.IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    private SocketClient start(ClientSettings.Builder client) {
        ClientSettings settings = client.build();
        return this.tls.servers.startWithClients(List.of(settings), this.connects).client(settings.name());
    }

    private SocketClient startOpen(ClientSettings.Builder client) throws InterruptedException {
        SocketClient started = start(client);
        await(() -> started.connections().size() == 1, "the client to connect");
        return started;
    }

    private static boolean answers(int port) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        }
        catch (java.io.IOException ex) {
            return false;
        }
    }

    /** @return a client's TLS that trusts the certificate alone, on the engine the tests run ({@link TlsCertificates#PROVIDER}) */
    private static Tls trusting(Path certificate) throws Exception {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        try (InputStream in = Files.newInputStream(certificate)) {
            trusted.setCertificateEntry("server", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        TlsManagers managers = new TlsManagers(null, trust);
        return Tls.client(context).withProvider(TlsCertificates.PROVIDER,
                (TlsCertificates.PROVIDER == Tls.Provider.JDK) ? null : () -> managers);
    }
}
