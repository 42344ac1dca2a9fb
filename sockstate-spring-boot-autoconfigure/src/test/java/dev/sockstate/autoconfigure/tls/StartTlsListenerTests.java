package dev.sockstate.autoconfigure.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.autoconfigure.StartupFailures;
import dev.sockstate.autoconfigure.TlsClients;
import dev.sockstate.autoconfigure.actuate.SockstateEndpoint;
import dev.sockstate.autoconfigure.actuate.SockstateEndpointAutoConfiguration;
import dev.sockstate.autoconfigure.metrics.SockstateMetricsAutoConfiguration;
import dev.sockstate.server.Connection;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import dev.sockstate.spring.handler.SocketHandlerDefinitionException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code sockstate.listeners.<name>.ssl.start-tls} and {@code sockstate.clients.<name>.ssl.start-tls}:
 * connections that begin in plaintext until their handler starts TLS (STARTTLS), over real sockets,
 * the JDK's TLS client and a sockstate client of the same context.
 */
class StartTlsListenerTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, SockstateAutoConfiguration.class,
                    SockstateMetricsAutoConfiguration.class, SockstateEndpointAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s", "management.endpoints.web.exposure.include=sockstate",
                    "sockstate.listeners.mail.address=127.0.0.1", "sockstate.listeners.mail.framing.type=line",
                    "spring.ssl.bundle.pem.server.keystore.certificate=classpath:tls/server.crt",
                    "spring.ssl.bundle.pem.server.keystore.private-key=classpath:tls/server.key",
                    "spring.ssl.bundle.pem.trust.truststore.certificate=classpath:tls/ca.crt");

    @Test
    void aHandlerBeanStartsTlsAfterItsAnswerAndTheClientGoesOnOverTls() {
        this.runner.withUserConfiguration(Mail.class).withPropertyValues("sockstate.listeners.mail.port=0", "sockstate.listeners.mail.ssl.bundle=server",
                "sockstate.listeners.mail.ssl.start-tls=true").run((context) -> {
                    assertThat(context).hasNotFailed();
                    int port = context.getEnvironment().getProperty("local.sockstate.mail.port", Integer.class);
                    try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), port)) {
                        plain.setSoTimeout(5000);
                        assertThat(TlsClients.ask(plain.getOutputStream(), plain.getInputStream(), "HELLO", "plain HELLO")).isEqualTo("plain HELLO");
                        assertThat(TlsClients.ask(plain.getOutputStream(), plain.getInputStream(), "STARTTLS", "220 ready")).isEqualTo("220 ready");
                        SSLSocket secure = (SSLSocket) TlsClients.client(null).getSocketFactory().createSocket(plain, "localhost", port, true);
                        assertThat(TlsClients.ask(secure.getOutputStream(), secure.getInputStream(), "HELLO", "TLSv1.3 HELLO")).isEqualTo("TLSv1.3 HELLO");
                    }
                    assertThat(context.getBean(SockstateEndpoint.class).sockstate().listeners().get(0).tls().startTls()).isTrue();
                    assertThat(context.getBean(MeterRegistry.class).get("sockstate.tls.handshakes").tag("outcome", "success").counter()
                            .count()).as("the handshake counted once started").isEqualTo(1);
                });
    }

    @Test
    void anUnframedHandlerBeanThatReadsTextStartsTlsWithNothingOfItsReadLeftForTheHandshake() {
        this.runner.withUserConfiguration(TextMail.class).withPropertyValues("sockstate.listeners.mail.port=0",
                "sockstate.listeners.mail.framing.type=none", "sockstate.listeners.mail.ssl.bundle=server",
                "sockstate.listeners.mail.ssl.start-tls=true").run((context) -> {
                    assertThat(context).hasNotFailed();
                    int port = context.getEnvironment().getProperty("local.sockstate.mail.port", Integer.class);
                    try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), port)) {
                        plain.setSoTimeout(5000);
                        assertThat(TlsClients.ask(plain.getOutputStream(), plain.getInputStream(), "STARTTLS", "220 ready")).isEqualTo("220 ready");
                        SSLSocket secure = (SSLSocket) TlsClients.client(null).getSocketFactory().createSocket(plain, "localhost", port, true);
                        assertThat(TlsClients.ask(secure.getOutputStream(), secure.getInputStream(), "HELLO", "TLSv1.3 HELLO")).isEqualTo("TLSv1.3 HELLO");
                    }
                });
    }

    @Test
    void aClientWhoseTlsStartsOnRequestUpgradesFromTheApplicationsThread() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        this.runner.withUserConfiguration(Mail.class).withPropertyValues("sockstate.listeners.mail.port=" + port, "sockstate.listeners.mail.ssl.bundle=server",
                "sockstate.listeners.mail.ssl.start-tls=true", "sockstate.clients.mailer.address=127.0.0.1:" + port,
                "sockstate.clients.mailer.framing.type=line", "sockstate.clients.mailer.ssl.bundle=trust",
                "sockstate.clients.mailer.ssl.server-name=localhost", "sockstate.clients.mailer.ssl.start-tls=true").run((context) -> {
                    assertThat(context).hasNotFailed();
                    SocketClient mailer = context.getBean(SocketServer.class).client("mailer");
                    long deadline = System.nanoTime() + 5_000_000_000L;
                    while (mailer.connections().isEmpty() && System.nanoTime() < deadline) {
                        Thread.sleep(10);
                    }
                    assertThat(mailer.request("HELLO", String.class).get(5, TimeUnit.SECONDS)).isEqualTo("plain HELLO");
                    assertThat(mailer.request("STARTTLS", String.class).get(5, TimeUnit.SECONDS)).isEqualTo("220 ready");
                    mailer.connection().startTls();
                    assertThat(mailer.request("HELLO", String.class).get(5, TimeUnit.SECONDS)).isEqualTo("TLSv1.3 HELLO");
                    assertThat(mailer.connection().tlsSession().getProtocol()).isEqualTo("TLSv1.3");
                });
    }

    @Test
    void startTlsWithoutABundleFailsStartUpNamingTheProperty() {
        this.runner.withUserConfiguration(Mail.class).withPropertyValues("sockstate.listeners.mail.port=0", "sockstate.listeners.mail.ssl.start-tls=true").run((context) -> {
            InvalidConfigurationPropertyValueException failure = StartupFailures.find(context, InvalidConfigurationPropertyValueException.class);
            assertThat(failure.getName()).isEqualTo("sockstate.listeners.mail.ssl.start-tls");
            assertThat(failure.getReason()).contains("set the listener's ssl.bundle too");
        });
        this.runner.withUserConfiguration(Mail.class).withPropertyValues("sockstate.listeners.mail.port=0", "sockstate.clients.mailer.address=127.0.0.1:25",
                "sockstate.clients.mailer.ssl.start-tls=true").run((context) -> {
                    InvalidConfigurationPropertyValueException failure = StartupFailures.find(context,
                            InvalidConfigurationPropertyValueException.class);
                    assertThat(failure.getName()).isEqualTo("sockstate.clients.mailer.ssl.start-tls");
                    assertThat(failure.getReason()).contains("set the client's ssl.bundle too");
                });
    }

    @Test
    void startTlsBesideServePlaintextFailsStartUpNamingTheProperty() {
        this.runner.withUserConfiguration(Mail.class).withPropertyValues("sockstate.listeners.mail.port=0", "sockstate.listeners.mail.ssl.bundle=server",
                "sockstate.listeners.mail.ssl.start-tls=true", "sockstate.listeners.mail.ssl.serve-plaintext=true").run((context) -> {
                    InvalidConfigurationPropertyValueException failure = StartupFailures.find(context,
                            InvalidConfigurationPropertyValueException.class);
                    assertThat(failure.getName()).isEqualTo("sockstate.listeners.mail.ssl.start-tls");
                    assertThat(failure.getReason()).contains("not both ways: remove one of them");
                });
    }

    @Test
    void aBeanChosenByApplicationProtocolOnAListenerWhoseTlsStartsOnRequestFailsStartUp() {
        this.runner.withUserConfiguration(Mail.class, Submission.class).withPropertyValues("sockstate.listeners.mail.port=0",
                "sockstate.listeners.mail.ssl.bundle=server", "sockstate.listeners.mail.ssl.start-tls=true",
                "sockstate.listeners.mail.ssl.application-protocols=smtp").run((context) -> {
                    SocketHandlerDefinitionException failure = StartupFailures.find(context, SocketHandlerDefinitionException.class);
                    assertThat(failure).hasMessageContaining("whose TLS starts on the handler's request");
                    assertThat(failure.action()).contains("or remove sockstate.listeners.mail.ssl.start-tls");
                });
    }

    @SocketHandler("mail")
    static class Mail {

        @OnData
        void answer(Connection connection, ByteBuffer line) {
            String command = StandardCharsets.US_ASCII.decode(line).toString();
            if (command.equals("STARTTLS")) {
                connection.write("220 ready".getBytes(StandardCharsets.US_ASCII));
                connection.startTls();
                return;
            }
            String tls = (connection.tlsSession() != null) ? connection.tlsSession().getProtocol() : "plain";
            connection.write((tls + " " + command).getBytes(StandardCharsets.US_ASCII));
        }
    }

    /** Reads each read as text, a line each (no framing), and ends its answers itself. */
    @SocketHandler("mail")
    static class TextMail {

        @OnData
        void answer(Connection connection, String read) {
            String command = read.strip();
            if (command.equals("STARTTLS")) {
                connection.write("220 ready\n".getBytes(StandardCharsets.US_ASCII));
                connection.startTls();
                return;
            }
            String tls = (connection.tlsSession() != null) ? connection.tlsSession().getProtocol() : "plain";
            connection.write((tls + " " + command + "\n").getBytes(StandardCharsets.US_ASCII));
        }
    }

    @SocketHandler(listener = "mail", applicationProtocol = "smtp")
    static class Submission {

        @OnData
        void answer(Connection connection, ByteBuffer line) {
            connection.write(line);
        }
    }
}
