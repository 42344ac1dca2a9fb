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
import dev.sockstate.spring.handler.OnOpen;
import dev.sockstate.spring.handler.SocketHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.Principal;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Import;

/**
 * {@code sockstate.listeners.<name>.ssl.*}: a listener on a Spring Boot SSL bundle, over real
 * sockets and the JDK's TLS client.
 */
@ExtendWith(OutputCaptureExtension.class)
class TlsListenerTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withUserConfiguration(Secure.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s",
                    "sockstate.listeners.secure.address=127.0.0.1", "sockstate.listeners.secure.port=0", "sockstate.listeners.secure.ssl.bundle=server",
                    "spring.ssl.bundle.pem.server.keystore.certificate=classpath:tls/server.crt",
                    "spring.ssl.bundle.pem.server.keystore.private-key=classpath:tls/server.key",
                    "spring.ssl.bundle.pem.server.truststore.certificate=classpath:tls/ca.crt");

    @Test
    void aListenerNamingABundleSpeaksTlsAndItsHandlerSeesTheSession() {
        this.runner.run((context) -> {
            int port = context.getEnvironment().getProperty("local.sockstate.secure.port", Integer.class);
            try (SSLSocket client = TlsClients.connect(TlsClients.client(null), port)) {
                client.getOutputStream().write("hello".getBytes());
                assertThat(client.getInputStream().readNBytes(5)).isEqualTo("hello".getBytes());
                assertThat(client.getSession().getProtocol()).isEqualTo("TLSv1.3");
            }
            Secure secure = context.getBean(Secure.class);
            assertThat(secure.protocol.get()).isEqualTo("TLSv1.3");
            assertThat(secure.principal.get()).as("no client certificate asked for").isEqualTo("none");
        });
    }

    @ParameterizedTest(name = "on the {0} engine")
    @ValueSource(strings = { "jdk", "openssl" })
    void withClientAuthNeedOnlyAClientCertifiedByTheTrustedCaIsServedAndItsPrincipalReachesTheHandler(String provider) {
        this.runner.withConfiguration(AutoConfigurations.of(SockstateMetricsAutoConfiguration.class, SockstateEndpointAutoConfiguration.class))
                .withBean(SimpleMeterRegistry.class).withPropertyValues("sockstate.listeners.secure.ssl.provider=" + provider,
                        "sockstate.listeners.secure.ssl.client-auth=need",
                        "management.endpoints.web.exposure.include=sockstate").run((context) -> {
            int port = context.getEnvironment().getProperty("local.sockstate.secure.port", Integer.class);
            Secure secure = context.getBean(Secure.class);
            for (String refused : new String[] { null, "stranger" }) {
                try (SSLSocket client = TlsClients.connect(TlsClients.client(refused), port)) {
                    assertThatExceptionOfType(IOException.class).as("client %s", refused).isThrownBy(() -> {
                        client.getOutputStream().write("hello".getBytes());
                        client.getOutputStream().flush();
                        if (client.getInputStream().read() < 0) {
                            throw new IOException("closed");
                        }
                    });
                }
            }
            assertThat(secure.opened.get()).as("the handler heard of no refused client").isZero();
            try (SSLSocket client = TlsClients.connect(TlsClients.client("client"), port)) {
                client.getOutputStream().write("hello".getBytes());
                assertThat(client.getInputStream().readNBytes(5)).isEqualTo("hello".getBytes());
            }
            assertThat(secure.principal.get()).isEqualTo("CN=trusted-client,O=sockstate tests");
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("sockstate.tls.handshakes").tag("listener", "secure").tag("outcome", "failure")
                    .tag("reason", "certificate").counter().count()).as("refused clients").isEqualTo(2);
            assertThat(meters.get("sockstate.tls.handshakes").tag("outcome", "success").counter().count()).isEqualTo(1);
            ListenerDescriptor listener = context.getBean(SockstateEndpoint.class).sockstate().listeners().get(0);
            assertThat(listener.tls().bundle()).isEqualTo("server");
            assertThat(listener.tls().clientAuth()).isEqualTo("need");
        });
    }

    @ParameterizedTest(name = "on the {0} engine")
    @ValueSource(strings = { "jdk", "openssl" })
    void aReloadedBundleServesNewConnections(String provider, @TempDir Path directory) throws Exception {
        copy("server", directory);
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, SockstateAutoConfiguration.class))
                .withUserConfiguration(Secure.class)
                .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s",
                        "sockstate.listeners.secure.address=127.0.0.1", "sockstate.listeners.secure.port=0", "sockstate.listeners.secure.ssl.bundle=reloading",
                        "sockstate.listeners.secure.ssl.provider=" + provider,
                        "spring.ssl.bundle.watch.file.quiet-period=100ms", "spring.ssl.bundle.pem.reloading.reload-on-update=true",
                        "spring.ssl.bundle.pem.reloading.keystore.certificate=" + directory.resolve("server.crt").toUri(),
                        "spring.ssl.bundle.pem.reloading.keystore.private-key=" + directory.resolve("server.key").toUri())
                .run((context) -> {
                    int port = context.getEnvironment().getProperty("local.sockstate.secure.port", Integer.class);
                    SSLSocket open = TlsClients.connect(TlsClients.client(null), port);
                    BigInteger first = serial(open);
                    assertThat(first).isEqualTo(serial("server"));
                    copy("server2", directory);
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    BigInteger served = first;
                    while (served.equals(first) && System.nanoTime() < deadline) {
                        Thread.sleep(100);
                        try (SSLSocket client = TlsClients.connect(TlsClients.client(null), port)) {
                            served = serial(client);
                        }
                    }
                    assertThat(served).as("a new connection's certificate").isEqualTo(serial("server2"));
                    open.getOutputStream().write("still".getBytes());
                    assertThat(open.getInputStream().readNBytes(5)).as("the open connection goes on").isEqualTo("still".getBytes());
                    open.close();
                });
    }

    private static void copy(String name, Path directory) throws IOException {
        for (String suffix : new String[] { ".crt", ".key" }) {
            try (InputStream in = TlsListenerTests.class.getResourceAsStream("/tls/" + name + suffix)) {
                Path target = directory.resolve("server" + suffix);
                Path next = directory.resolve("next" + suffix);
                Files.copy(in, next, StandardCopyOption.REPLACE_EXISTING);
                Files.move(next, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
        }
    }

    private static BigInteger serial(SSLSocket socket) throws IOException {
        return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
    }

    private static BigInteger serial(String name) throws Exception {
        try (InputStream in = TlsListenerTests.class.getResourceAsStream("/tls/" + name + ".crt")) {
            return ((X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in)).getSerialNumber();
        }
    }

    @Test
    void bundleOptionsTheJdkDoesNotOfferFailStartUpNamingTheBundle() {
        this.runner.withPropertyValues("spring.ssl.bundle.pem.server.options.enabled-protocols=TLSv9").run((context) -> {
            InvalidConfigurationPropertyValueException failure = StartupFailures.find(context,
                    InvalidConfigurationPropertyValueException.class);
            assertThat(failure.getName()).isEqualTo("sockstate.listeners.secure.ssl.bundle");
            assertThat(failure.getReason()).contains("The options of SSL bundle 'server'").contains("TLSv9");
        });
    }

    @Test
    void clientAuthOnABundleWithoutATrustStoreFailsStartUp() {
        this.runner.withPropertyValues("spring.ssl.bundle.pem.server.truststore.certificate=",
                "sockstate.listeners.secure.ssl.client-auth=need").run((context) -> {
                    InvalidConfigurationPropertyValueException failure = StartupFailures.find(context,
                            InvalidConfigurationPropertyValueException.class);
                    assertThat(failure.getName()).isEqualTo("sockstate.listeners.secure.ssl.client-auth");
                    assertThat(failure.getReason()).contains("has none (the JDK's public CAs would be trusted)");
                });
    }

    @Test
    void clientAuthServedByANamedBundleWithoutATrustStoreFailsStartUpNamingIt() {
        this.runner.withPropertyValues("sockstate.listeners.secure.ssl.client-auth=need",
                "spring.ssl.bundle.pem.sni.keystore.certificate=classpath:tls/server2.crt",
                "spring.ssl.bundle.pem.sni.keystore.private-key=classpath:tls/server2.key",
                "sockstate.listeners.secure.ssl.server-name-bundles[0].server-name=other.test",
                "sockstate.listeners.secure.ssl.server-name-bundles[0].bundle=sni").run((context) -> {
                    InvalidConfigurationPropertyValueException failure = StartupFailures.find(context,
                            InvalidConfigurationPropertyValueException.class);
                    assertThat(failure.getName()).isEqualTo("sockstate.listeners.secure.ssl.server-name-bundles[0].bundle");
                    assertThat(failure.getReason()).contains("SSL bundle 'sni' has none (the JDK's public CAs would be trusted)");
                });
    }

    @ParameterizedTest(name = "on the {0} engine")
    @ValueSource(strings = { "jdk", "openssl" })
    void aBundleChosenByServerNameChecksClientsAgainstItsOwnTrustStoreAndServesItsOwnOptions(String provider) {
        this.runner.withPropertyValues("sockstate.listeners.secure.ssl.provider=" + provider, "sockstate.listeners.secure.ssl.client-auth=need",
                "spring.ssl.bundle.pem.server.options.enabled-protocols=TLSv1.3",
                "spring.ssl.bundle.pem.sni.keystore.certificate=classpath:tls/server2.crt",
                "spring.ssl.bundle.pem.sni.keystore.private-key=classpath:tls/server2.key",
                "spring.ssl.bundle.pem.sni.truststore.certificate=classpath:tls/other-ca.crt",
                "spring.ssl.bundle.pem.sni.options.enabled-protocols=TLSv1.2",
                "sockstate.listeners.secure.ssl.server-name-bundles[0].server-name=Other.Test",
                "sockstate.listeners.secure.ssl.server-name-bundles[0].bundle=sni").run((context) -> {
                    int port = context.getEnvironment().getProperty("local.sockstate.secure.port", Integer.class);
                    try (SSLSocket named = connect("stranger", "other.test", port)) {
                        assertThat(echo(named)).as("a client the named bundle's CA certified").isTrue();
                        assertThat(named.getSession().getProtocol()).as("the named bundle's protocols").isEqualTo("TLSv1.2");
                        assertThat(serial(named)).isEqualTo(serial("server2"));
                    }
                    try (SSLSocket named = connect("client", "other.test", port)) {
                        assertThat(echo(named)).as("a client of the listener's CA asking for the named server").isFalse();
                    }
                    try (SSLSocket other = connect("stranger", "localhost", port)) {
                        assertThat(echo(other)).as("the named bundle's client asking for another name").isFalse();
                    }
                    try (SSLSocket other = connect("client", "localhost", port)) {
                        assertThat(echo(other)).isTrue();
                        assertThat(other.getSession().getProtocol()).isEqualTo("TLSv1.3");
                        assertThat(serial(other)).isEqualTo(serial("server"));
                    }
                    assertThat(context.getBean(Secure.class).principal.get()).isEqualTo("CN=trusted-client,O=sockstate tests");
                });
    }

    /** @return a TLS client with the named key asking for the server name */
    private static SSLSocket connect(String key, String serverName, int port) throws Exception {
        SSLSocket socket = TlsClients.connect(TlsClients.client(key), port);
        SSLParameters parameters = socket.getSSLParameters();
        parameters.setServerNames(List.of(new SNIHostName(serverName)));
        parameters.setProtocols(new String[] { "TLSv1.3", "TLSv1.2" });
        socket.setSSLParameters(parameters);
        return socket;
    }

    /** @return whether the listener echoed, {@code false} when the handshake or the first read failed */
    private static boolean echo(SSLSocket socket) {
        try {
            socket.getOutputStream().write("hello".getBytes());
            socket.getOutputStream().flush();
            return Arrays.equals(socket.getInputStream().readNBytes(5), "hello".getBytes());
        }
        catch (IOException ex) {
            return false;
        }
    }

    @Test
    void aMissingBundleFailsStartUpNamingThePropertyAndTheBundle(CapturedOutput output) {
        SpringApplicationBuilder application = new SpringApplicationBuilder(SecureApplication.class).web(WebApplicationType.NONE)
                .properties("sockstate.workers.threads=1", "sockstate.listeners.secure.address=127.0.0.1", "sockstate.listeners.secure.port=0",
                        "sockstate.listeners.secure.ssl.bundle=nosuch");
        assertThatExceptionOfType(RuntimeException.class).isThrownBy(application::run);
        assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("Invalid value 'nosuch' for configuration property 'sockstate.listeners.secure.ssl.bundle'")
                .contains("No SSL bundle named 'nosuch' exists; define it under spring.ssl.bundle.pem.nosuch");
    }

    @SocketHandler("secure")
    static class Secure {

        final AtomicReference<String> protocol = new AtomicReference<>();

        final AtomicReference<String> principal = new AtomicReference<>();

        final java.util.concurrent.atomic.AtomicInteger opened = new java.util.concurrent.atomic.AtomicInteger();

        @OnOpen
        void open(Connection connection, Principal client) {
            this.opened.incrementAndGet();
            this.protocol.set(connection.tlsSession().getProtocol());
            this.principal.set((client != null) ? client.getName() : "none");
        }

        @OnData
        ByteBuffer echo(ByteBuffer data) {
            return data;
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Secure.class)
    static class SecureApplication {
    }
}
