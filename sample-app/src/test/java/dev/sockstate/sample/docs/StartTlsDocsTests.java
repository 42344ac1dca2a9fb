package dev.sockstate.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.Connection;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.OnOpen;
import dev.sockstate.spring.handler.SocketHandler;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The STARTTLS example of the TLS page ({@code docs/starttls.yml} and the handler below), run: a
 * plain client greets, asks for TLS, and goes on over TLS with the sample's demonstration certificate.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StartTlsDocsTests {

    // tag::starttls-handler[]
    @SocketHandler("submission")
    static class Submission {

        @OnOpen
        void greet(Connection connection) {
            connection.write("220 mail.example.org ESMTP".getBytes(StandardCharsets.US_ASCII));
        }

        @OnData
        String command(Connection connection, String line) {
            if (line.equalsIgnoreCase("STARTTLS") && connection.tlsSession() == null) {
                connection.write("220 2.0.0 Ready to start TLS".getBytes(StandardCharsets.US_ASCII));
                connection.startTls();     // what the client sends next is its handshake
                return null;
            }
            String secured = (connection.tlsSession() != null) ? " (" + connection.tlsSession().getProtocol() + ")" : "";
            return "250 " + line.toUpperCase(Locale.ROOT) + " ok" + secured;
        }
    }
    // end::starttls-handler[]

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withInitializer(DocsYaml.load("docs/starttls.yml"))
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s",
                    "sockstate.listeners.submission.address=127.0.0.1", "sockstate.listeners.submission.port=0",
                    "spring.ssl.bundle.pem.server.keystore.certificate=classpath:tls/server.crt",
                    "spring.ssl.bundle.pem.server.keystore.private-key=classpath:tls/server.key")
            .withUserConfiguration(Submission.class);

    @Test
    void aPlainClientAsksForTlsAndGoesOnOverIt() {
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            int port = context.getEnvironment().getProperty("local.sockstate.submission.port", Integer.class);
            try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), port)) {
                plain.setSoTimeout(5000);
                assertThat(line(plain.getInputStream())).isEqualTo("220 mail.example.org ESMTP");
                assertThat(ask(plain.getOutputStream(), plain.getInputStream(), "ehlo client")).isEqualTo("250 EHLO CLIENT ok");
                assertThat(ask(plain.getOutputStream(), plain.getInputStream(), "STARTTLS")).isEqualTo("220 2.0.0 Ready to start TLS");
                SSLSocket secure = (SSLSocket) trustingTheSample().getSocketFactory().createSocket(plain, "localhost", port, true);
                assertThat(ask(secure.getOutputStream(), secure.getInputStream(), "ehlo client")).isEqualTo("250 EHLO CLIENT ok (TLSv1.3)");
            }
        });
    }

    private static String ask(OutputStream out, InputStream in, String command) throws Exception {
        out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return line(in);
    }

    private static String line(InputStream in) throws Exception {
        StringBuilder line = new StringBuilder();
        for (int b; (b = in.read()) != '\n';) {
            assertThat(b).as("a whole line before the end").isNotNegative();
            line.append((char) b);
        }
        assertThat(line).as("a line ended by CR LF").endsWith("\r");
        return line.substring(0, line.length() - 1);
    }

    private static SSLContext trustingTheSample() throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream ca = StartTlsDocsTests.class.getResourceAsStream("/tls/ca.crt")) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(ca));
        }
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trustManagers.getTrustManagers(), null);
        return context;
    }
}
