package dev.sockstate.autoconfigure.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.autoconfigure.StartupFailures;
import dev.sockstate.autoconfigure.TlsClients;
import dev.sockstate.autoconfigure.actuate.SockstateEndpoint;
import dev.sockstate.autoconfigure.actuate.SockstateEndpointAutoConfiguration;
import dev.sockstate.autoconfigure.metrics.SockstateMetricsAutoConfiguration;
import dev.sockstate.server.Connection;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code sockstate.listeners.<name>.ssl.serve-plaintext}: one port for TLS and plaintext, the first
 * bytes deciding, over real sockets and the JDK's TLS client.
 */
class PlaintextBesideTlsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, SockstateAutoConfiguration.class,
                    SockstateMetricsAutoConfiguration.class, SockstateEndpointAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class)
            .withUserConfiguration(Either.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s", "management.endpoints.web.exposure.include=sockstate",
                    "sockstate.listeners.either.address=127.0.0.1", "sockstate.listeners.either.port=0",
                    "spring.ssl.bundle.pem.server.keystore.certificate=classpath:tls/server.crt",
                    "spring.ssl.bundle.pem.server.keystore.private-key=classpath:tls/server.key");

    @Test
    void aListenerServingPlaintextAnswersAPlainClientAndATlsClientOnOnePort() {
        this.runner.withPropertyValues("sockstate.listeners.either.ssl.bundle=server", "sockstate.listeners.either.ssl.serve-plaintext=true")
                .run((context) -> {
                    int port = context.getEnvironment().getProperty("local.sockstate.either.port", Integer.class);
                    try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), port)) {
                        plain.setSoTimeout(5000);
                        assertThat(ask(plain.getOutputStream(), plain.getInputStream(), "plain")).isEqualTo("plaintext:hi");
                    }
                    try (SSLSocket secure = TlsClients.connect(TlsClients.client(null), port)) {
                        assertThat(ask(secure.getOutputStream(), secure.getInputStream(), "TLSv1.3")).isEqualTo("TLSv1.3:hi");
                    }
                    assertThat(context.getBean(SockstateEndpoint.class).sockstate().listeners().get(0).tls().plaintextServed()).isTrue();
                    assertThat(context.getBean(MeterRegistry.class).get("sockstate.tls.plaintext").tag("listener", "either").counter().count())
                            .as("plaintext connections counted").isEqualTo(1);
                    assertThat(context.getBean(MeterRegistry.class).get("sockstate.tls.handshakes").tag("outcome", "success").counter()
                            .count()).isEqualTo(1);
                });
    }

    @Test
    void servePlaintextBesideClientAuthNeedFailsStartUpNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.either.ssl.bundle=server", "sockstate.listeners.either.ssl.serve-plaintext=true",
                "sockstate.listeners.either.ssl.client-auth=need", "spring.ssl.bundle.pem.server.truststore.certificate=classpath:tls/ca.crt")
                .run((context) -> {
                    InvalidConfigurationPropertyValueException failure = StartupFailures.find(context,
                            InvalidConfigurationPropertyValueException.class);
                    assertThat(failure.getName()).isEqualTo("sockstate.listeners.either.ssl.serve-plaintext");
                    assertThat(failure.getReason()).contains("a plaintext client would be served without a certificate");
                });
    }

    @Test
    void servePlaintextWithoutABundleFailsStartUpNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.either.ssl.serve-plaintext=true").run((context) -> {
            InvalidConfigurationPropertyValueException failure = StartupFailures.find(context, InvalidConfigurationPropertyValueException.class);
            assertThat(failure.getName()).isEqualTo("sockstate.listeners.either.ssl.serve-plaintext");
            assertThat(failure.getReason()).contains("set the listener's ssl.bundle too");
        });
    }

    /** @return the answer to "hi": the connection's TLS protocol ("plaintext" without), a colon, and "hi" */
    private static String ask(OutputStream out, InputStream in, String expected) throws Exception {
        out.write("hi".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String prefix = expected.equals("plain") ? "plaintext:" : expected + ":";
        return new String(in.readNBytes(prefix.length() + 2), StandardCharsets.US_ASCII);
    }

    @SocketHandler("either")
    static class Either {

        @OnData
        ByteBuffer answer(Connection connection, ByteBuffer data) {
            String tls = (connection.tlsSession() != null) ? connection.tlsSession().getProtocol() : "plaintext";
            return ByteBuffer.wrap((tls + ":" + StandardCharsets.US_ASCII.decode(data)).getBytes(StandardCharsets.US_ASCII));
        }
    }
}
