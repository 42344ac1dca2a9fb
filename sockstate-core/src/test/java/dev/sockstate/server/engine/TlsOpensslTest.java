package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * OpenSSL's {@code s_client} against the TLS stage: another implementation than the JDK's, checking
 * the chain against the test CA. Skipped where openssl is missing, except on CI ({@code CI} set),
 * where that fails the test.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsOpensslTest {

    private final TlsFixture fixture;

    TlsOpensslTest() throws Exception {
        this.fixture = new TlsFixture();
    }

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    @Test
    void opensslEchoesOverTls13AndVerifiesTheServersChain() throws Exception {
        String output = roundTrip("-tls1_3");
        assertThat(output).contains("Verify return code: 0 (ok)").contains("TLSv1.3");
    }

    @Test
    void opensslEchoesOverTls12AndVerifiesTheServersChain() throws Exception {
        String output = roundTrip("-tls1_2");
        assertThat(output).contains("Verify return code: 0 (ok)").contains("TLSv1.2");
    }

    @Test
    void aTls12RenegotiationThatOpensslAsksForIsRefusedWithAnAlertItReportsAsAFailure() throws Exception {
        String openssl = openssl();
        TlsFixture.Recording handler = new TlsFixture.Recording();
        SocketServer server = this.fixture.start(this.fixture.serverTls(), handler);
        int port = server.listener("tls").portNumber();
        for (int i = 0; i < 3; i++) {
            // What scanners do (testssl.sh's client-initiated renegotiation check): 'R' asks for a
            // renegotiation; an exit code of 0 reads as a renegotiation the server accepted.
            Process client = new ProcessBuilder(openssl, "s_client", "-connect", "127.0.0.1:" + port, "-tls1_2")
                    .redirectErrorStream(true).start();
            ByteArrayOutputStream output = new ByteArrayOutputStream();
            Thread reader = new Thread(() -> copy(client.getInputStream(), output));
            reader.start();
            try (OutputStream in = client.getOutputStream()) {
                in.write("R\n".getBytes(StandardCharsets.US_ASCII));
            }
            assertThat(client.waitFor(10, TimeUnit.SECONDS)).as("s_client ended").isTrue();
            reader.join(5000);
            assertThat(client.exitValue()).as("s_client's exit code; output:%n%s", text(output)).isNotZero();
            assertThat(text(output)).contains("RENEGOTIATING").contains("alert");
        }
        ServerFixture.await(() -> this.fixture.handshakes.size() == 6, "every handshake and refusal reported");
        assertThat(this.fixture.handshakes).containsExactly("ok", "renegotiation", "ok", "renegotiation", "ok", "renegotiation");
    }

    @Test
    void aListenerThatNamesNoCipherSuitesRefusesAClientOfferingOnlyCbcSuitesAndServesAeadOnes() throws Exception {
        String openssl = openssl();
        SocketServer server = this.fixture.start(this.fixture.serverTls(), new TlsFixture.Recording());
        int port = server.listener("tls").portNumber();
        String cbc = "ECDHE-ECDSA-AES128-SHA256:ECDHE-ECDSA-AES256-SHA384:ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA"
                + ":ECDHE-RSA-AES128-SHA256:ECDHE-RSA-AES256-SHA384:AES128-SHA256:AES256-SHA256:AES128-SHA:AES256-SHA";
        Process refused = new ProcessBuilder(openssl, "s_client", "-connect", "127.0.0.1:" + port, "-tls1_2", "-cipher", cbc,
                "-CAfile", this.fixture.certificates.caPem().toString()).redirectErrorStream(true).start();
        refused.getOutputStream().close();
        assertThat(refused.waitFor(10, TimeUnit.SECONDS)).as("s_client ended").isTrue();
        String refusal = new String(refused.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(refused.exitValue()).as("s_client's exit code; output:%n%s", refusal).isNotZero();
        assertThat(refusal).contains("handshake failure");
        ServerFixture.await(() -> this.fixture.handshakes.size() == 1, "the refusal reported");
        for (String aead : List.of("ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-CHACHA20-POLY1305")) {
            Process served = new ProcessBuilder(openssl, "s_client", "-connect", "127.0.0.1:" + port, "-tls1_2", "-cipher", aead,
                    "-CAfile", this.fixture.certificates.caPem().toString(), "-verify_return_error").redirectErrorStream(true).start();
            served.getOutputStream().close();
            assertThat(served.waitFor(10, TimeUnit.SECONDS)).as("s_client ended").isTrue();
            String output = new String(served.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(served.exitValue()).as("s_client's exit code; output:%n%s", output).isZero();
            assertThat(output).containsPattern("Cipher\\s+(is|:)\\s+" + aead);
        }
    }

    @Test
    void opensslIsToldTheServersMostPreferredApplicationProtocolItOffersAndRefusedWhenItOffersOnlyOthers() throws Exception {
        String openssl = openssl();
        TlsFixture.Recording handler = new TlsFixture.Recording();
        SocketServer server = this.fixture.start(this.fixture.serverTls().withApplicationProtocols("h2", "http/1.1"), handler);
        int port = server.listener("tls").portNumber();
        String chosen = sClient(openssl, port, "-alpn", "http/1.1,h2");
        assertThat(chosen).contains("ALPN protocol: h2");
        String refused = sClient(openssl, port, "-alpn", "spdy/3,imap");
        assertThat(refused).contains("no application protocol").doesNotContain("ALPN protocol:");
        ServerFixture.await(() -> this.fixture.handshakes.size() == 2, "both handshakes reported");
        assertThat(this.fixture.handshakes).containsExactly("ok", "application-protocol");
    }

    @Test
    void opensslThatSendsNothingAfterItsHandshakeReadsTheGreetingOfAServerThatSpeaksFirst() throws Exception {
        String openssl = openssl();
        TlsFixture.Greeting handler = new TlsFixture.Greeting();
        SocketServer server = this.fixture.start(this.fixture.serverTls(), handler);
        int port = server.listener("tls").portNumber();
        for (String protocol : List.of("-tls1_3", "-tls1_2")) {
            // s_client's input stays open and silent: it sends nothing after its Finished until the greeting came.
            Process client = new ProcessBuilder(openssl, "s_client", "-connect", "127.0.0.1:" + port, "-CAfile",
                    this.fixture.certificates.caPem().toString(), "-verify_return_error", "-quiet", protocol)
                    .redirectErrorStream(true).start();
            ByteArrayOutputStream output = new ByteArrayOutputStream();
            Thread reader = new Thread(() -> copy(client.getInputStream(), output));
            reader.start();
            try {
                ServerFixture.await(() -> text(output).contains(TlsFixture.Greeting.GREETING.strip()), "the greeting reached s_client, " + protocol);
            }
            finally {
                client.destroyForcibly();
                reader.join(5000);
            }
        }
        assertThat(this.fixture.handshakes).containsExactly("ok", "ok");
    }

    /** @return what s_client printed, connecting with these options and leaving at once */
    private String sClient(String openssl, int port, String... options) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(openssl, "s_client", "-connect", "127.0.0.1:" + port, "-CAfile",
                this.fixture.certificates.caPem().toString()));
        command.addAll(List.of(options));
        Process client = new ProcessBuilder(command).redirectErrorStream(true).start();
        client.getOutputStream().close();
        assertThat(client.waitFor(10, TimeUnit.SECONDS)).as("s_client ended").isTrue();
        return new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    private String roundTrip(String protocol) throws Exception {
        String openssl = openssl();
        TlsFixture.Recording handler = new TlsFixture.Recording();
        SocketServer server = this.fixture.start(this.fixture.serverTls(), handler);
        int port = server.listener("tls").portNumber();
        Process client = new ProcessBuilder(openssl, "s_client", "-connect", "127.0.0.1:" + port, "-CAfile",
                this.fixture.certificates.caPem().toString(), "-verify_hostname", "localhost", "-verify_return_error", protocol)
                .redirectErrorStream(true).start();
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> copy(client.getInputStream(), output));
        reader.start();
        try {
            OutputStream in = client.getOutputStream();
            in.write("hello from openssl\n".getBytes(StandardCharsets.US_ASCII));
            in.flush();
            ServerFixture.await(() -> text(output).contains("hello from openssl"), "the echo came back");
            in.close();
            assertThat(client.waitFor(10, TimeUnit.SECONDS)).as("s_client ended").isTrue();
            reader.join(5000);
            assertThat(client.exitValue()).as("s_client's exit code; output:%n%s", text(output)).isZero();
        }
        finally {
            client.destroyForcibly();
        }
        assertThat(this.fixture.handshakes).containsExactly("ok");
        assertThat(handler.sessions.peek().getProtocol()).isEqualTo(protocol.equals("-tls1_3") ? "TLSv1.3" : "TLSv1.2");
        ServerFixture.await(() -> handler.closed.get() == 1, "the connection closed after s_client left");
        return text(output);
    }

    /** @return openssl's path; skips the test where there is none, or fails it on CI */
    static String openssl() {
        String found = List.of("/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl").stream()
                .filter((path) -> Files.isExecutable(Path.of(path))).findFirst().orElse(null);
        if (found == null && System.getenv("CI") != null) {
            throw new AssertionError("openssl is needed on CI (the CI variable is set) and was not found");
        }
        assumeTrue(found != null, "openssl is not installed");
        return found;
    }

    private static void copy(InputStream from, ByteArrayOutputStream to) {
        byte[] chunk = new byte[4096];
        try {
            int count;
            while ((count = from.read(chunk)) >= 0) {
                synchronized (to) {
                    to.write(chunk, 0, count);
                }
            }
        }
        catch (IOException ex) {
            // the process ended
        }
    }

    private static String text(ByteArrayOutputStream output) {
        synchronized (output) {
            return output.toString(StandardCharsets.UTF_8);
        }
    }
}
