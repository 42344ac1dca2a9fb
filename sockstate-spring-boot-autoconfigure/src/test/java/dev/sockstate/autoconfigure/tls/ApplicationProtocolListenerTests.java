package dev.sockstate.autoconfigure.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.autoconfigure.StartupFailures;
import dev.sockstate.autoconfigure.TlsClients;
import dev.sockstate.autoconfigure.actuate.SockstateEndpoint;
import dev.sockstate.autoconfigure.actuate.SockstateEndpoint.ListenerDescriptor;
import dev.sockstate.autoconfigure.actuate.SockstateEndpointAutoConfiguration;
import dev.sockstate.autoconfigure.metrics.SockstateMetricsAutoConfiguration;
import dev.sockstate.server.Connection;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import dev.sockstate.spring.handler.SocketHandlerDefinitionException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code sockstate.listeners.<name>.ssl.application-protocols} and
 * {@code @SocketHandler(applicationProtocol = ...)}: one TLS port serving a bean per negotiated
 * protocol (ALPN) and one for the connections without one, over real sockets and the JDK's TLS client.
 */
class ApplicationProtocolListenerTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s",
                    "sockstate.listeners.secure.address=127.0.0.1", "sockstate.listeners.secure.port=0", "sockstate.listeners.secure.ssl.bundle=server",
                    "spring.ssl.bundle.pem.server.keystore.certificate=classpath:tls/server.crt",
                    "spring.ssl.bundle.pem.server.keystore.private-key=classpath:tls/server.key",
                    "spring.ssl.bundle.pem.server.truststore.certificate=classpath:tls/ca.crt");

    @Test
    void eachConnectionIsServedByTheBeanOfTheProtocolItsHandshakeChoseAndOneWithoutByTheBeanThatNamesNone() {
        this.runner.withConfiguration(AutoConfigurations.of(SockstateMetricsAutoConfiguration.class, SockstateEndpointAutoConfiguration.class))
                .withBean(SimpleMeterRegistry.class).withUserConfiguration(Mqtt.class, Legacy.class, Plain.class)
                .withPropertyValues("sockstate.listeners.secure.ssl.application-protocols=mqtt,x-legacy",
                        "management.endpoints.web.exposure.include=sockstate").run((context) -> {
                    assertThat(context).hasNotFailed();
                    int port = context.getEnvironment().getProperty("local.sockstate.secure.port", Integer.class);
                    assertThat(ask(port, "x-legacy", "mqtt")).as("the server's preference").isEqualTo("mqtt:hi");
                    assertThat(ask(port, "x-legacy")).isEqualTo("x-legacy:hi");
                    assertThat(ask(port)).as("no application protocol offered").isEqualTo("none:hi");
                    try (SSLSocket refused = TlsClients.connect(TlsClients.client(null), port)) {
                        SSLParameters parameters = refused.getSSLParameters();
                        parameters.setApplicationProtocols(new String[] { "h2" });
                        refused.setSSLParameters(parameters);
                        assertThatExceptionOfType(SSLHandshakeException.class).isThrownBy(refused::startHandshake)
                                .withMessageContaining("no_application_protocol");
                    }
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    long deadline = System.nanoTime() + 5_000_000_000L;
                    while (meters.find("sockstate.tls.handshakes").tag("reason", "application-protocol").counter() == null
                            && System.nanoTime() < deadline) {
                        Thread.sleep(10);
                    }
                    assertThat(meters.get("sockstate.tls.handshakes").tag("listener", "secure").tag("outcome", "failure")
                            .tag("reason", "application-protocol").counter().count()).isEqualTo(1);
                    ListenerDescriptor listener = context.getBean(SockstateEndpoint.class).sockstate().listeners().get(0);
                    assertThat(listener.tls().applicationProtocols()).containsExactly("mqtt", "x-legacy");
                });
    }

    @Test
    void aBeanNamingAProtocolTheListenerDoesNotNegotiateFailsStartUpNamingTheProperty() {
        this.runner.withUserConfiguration(Mqtt.class, Plain.class).withPropertyValues("sockstate.listeners.secure.ssl.application-protocols=x-legacy")
                .run((context) -> {
                    SocketHandlerDefinitionException failure = StartupFailures.find(context, SocketHandlerDefinitionException.class);
                    assertThat(failure).hasMessageContaining("serves the 'mqtt' connections of listener 'secure', which does not negotiate it");
                    assertThat(failure.action()).contains("ssl.application-protocols [x-legacy]");
                });
    }

    @Test
    void withoutABeanNamingNoProtocolEveryProtocolNeedsOneAndPlaintextIsNotServed() {
        this.runner.withUserConfiguration(Mqtt.class).withPropertyValues("sockstate.listeners.secure.ssl.application-protocols=mqtt,x-legacy")
                .run((context) -> {
                    SocketHandlerDefinitionException failure = StartupFailures.find(context, SocketHandlerDefinitionException.class);
                    assertThat(failure).hasMessageContaining("Listener 'secure' has handlers by application protocol, and none for the"
                            + " connections of [x-legacy]");
                    assertThat(failure.action()).contains("@SocketHandler(\"secure\")");
                });
        this.runner.withUserConfiguration(Mqtt.class).withPropertyValues("sockstate.listeners.secure.ssl.application-protocols=mqtt",
                "sockstate.listeners.secure.ssl.serve-plaintext=true").run((context) -> {
                    SocketHandlerDefinitionException failure = StartupFailures.find(context, SocketHandlerDefinitionException.class);
                    assertThat(failure).hasMessageContaining("none for its plaintext connections");
                    assertThat(failure.action()).contains("or remove sockstate.listeners.secure.ssl.serve-plaintext");
                });
        this.runner.withUserConfiguration(Mqtt.class).withPropertyValues("sockstate.listeners.secure.ssl.application-protocols=mqtt")
                .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void twoBeansForOneProtocolFailStartUpNamingBoth() {
        this.runner.withUserConfiguration(Mqtt.class, OtherMqtt.class)
                .withPropertyValues("sockstate.listeners.secure.ssl.application-protocols=mqtt").run((context) -> assertThat(
                        StartupFailures.find(context, SocketHandlerDefinitionException.class))
                        .hasMessageContaining("Listener 'secure' has two handlers for application protocol 'mqtt'"));
    }

    @Test
    void applicationProtocolsWithoutABundleOrWithANameThatCannotBeOneFailStartUpNamingTheProperty() {
        this.runner.withUserConfiguration(Plain.class, Open.class).withPropertyValues("sockstate.listeners.open.address=127.0.0.1",
                "sockstate.listeners.open.port=0", "sockstate.listeners.open.ssl.application-protocols=mqtt").run((context) -> {
                    InvalidConfigurationPropertyValueException failure = StartupFailures.find(context,
                            InvalidConfigurationPropertyValueException.class);
                    assertThat(failure.getName()).isEqualTo("sockstate.listeners.open.ssl.application-protocols");
                    assertThat(failure.getReason()).contains("set the listener's ssl.bundle too");
                });
        this.runner.withUserConfiguration(Plain.class).withPropertyValues("sockstate.listeners.secure.ssl.application-protocols=h2,http 1.1")
                .run((context) -> {
                    InvalidConfigurationPropertyValueException failure = StartupFailures.find(context,
                            InvalidConfigurationPropertyValueException.class);
                    assertThat(failure.getName()).isEqualTo("sockstate.listeners.secure.ssl.application-protocols");
                    assertThat(failure.getValue()).isEqualTo(List.of("h2", "http 1.1"));
                    assertThat(failure.getReason()).contains("'http 1.1' cannot be an application protocol (ALPN) name");
                });
    }

    /** @return what the listener answers "hi" with, to a client offering those application protocols */
    private static String ask(int port, String... protocols) throws Exception {
        try (SSLSocket client = TlsClients.connect(TlsClients.client(null), port)) {
            SSLParameters parameters = client.getSSLParameters();
            parameters.setApplicationProtocols(protocols);
            client.setSSLParameters(parameters);
            client.getOutputStream().write("hi".getBytes(StandardCharsets.US_ASCII));
            String prefix = (protocols.length == 0) ? "none:" : client.getApplicationProtocol() + ":";
            byte[] answer = client.getInputStream().readNBytes(prefix.length() + 2);
            return new String(answer, StandardCharsets.US_ASCII);
        }
    }

    /** @return who answers, the connection's application protocol as its handler reads it, and the data */
    private static ByteBuffer answer(String who, Connection connection, ByteBuffer data) {
        String protocol = connection.applicationProtocol();
        String text = who + ((who.equals((protocol != null) ? protocol : "none")) ? "" : "(but " + protocol + ")") + ":"
                + StandardCharsets.US_ASCII.decode(data);
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    @SocketHandler(listener = "secure", applicationProtocol = "mqtt")
    static class Mqtt {

        @OnData
        ByteBuffer answer(Connection connection, ByteBuffer data) {
            return ApplicationProtocolListenerTests.answer("mqtt", connection, data);
        }
    }

    @SocketHandler(listener = "secure", applicationProtocol = "mqtt")
    static class OtherMqtt {

        @OnData
        ByteBuffer answer(Connection connection, ByteBuffer data) {
            return ApplicationProtocolListenerTests.answer("mqtt", connection, data);
        }
    }

    @SocketHandler(listener = "secure", applicationProtocol = "x-legacy")
    static class Legacy {

        @OnData
        ByteBuffer answer(Connection connection, ByteBuffer data) {
            return ApplicationProtocolListenerTests.answer("x-legacy", connection, data);
        }
    }

    @SocketHandler("open")
    static class Open {

        @OnData
        ByteBuffer answer(ByteBuffer data) {
            return data;
        }
    }

    @SocketHandler("secure")
    static class Plain {

        @OnData
        ByteBuffer answer(Connection connection, ByteBuffer data) {
            return ApplicationProtocolListenerTests.answer("none", connection, data);
        }
    }
}
