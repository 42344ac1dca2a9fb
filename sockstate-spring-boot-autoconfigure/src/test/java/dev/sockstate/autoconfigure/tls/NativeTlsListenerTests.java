package dev.sockstate.autoconfigure.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.autoconfigure.StartupFailures;
import dev.sockstate.autoconfigure.TlsClients;
import dev.sockstate.autoconfigure.metrics.SockstateMetricsAutoConfiguration;
import dev.sockstate.server.Connection;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code sockstate.listeners.<name>.ssl.provider} and {@code sockstate.clients.<name>.ssl.provider}:
 * OpenSSL's engine (BoringSSL through netty-tcnative, on this module's test class path) made of the
 * bundle's managers, over real sockets, the JDK's TLS client and a sockstate client of the same context.
 */
class NativeTlsListenerTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, SockstateAutoConfiguration.class,
                    SockstateMetricsAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class).withUserConfiguration(Echo.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s",
                    "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.framing.type=line",
                    "sockstate.listeners.echo.ssl.bundle=server",
                    "spring.ssl.bundle.pem.server.keystore.certificate=classpath:tls/server.crt",
                    "spring.ssl.bundle.pem.server.keystore.private-key=classpath:tls/server.key",
                    "spring.ssl.bundle.pem.trust.truststore.certificate=classpath:tls/ca.crt");

    @Test
    void aListenerOnOpenSslServesTheJdksClientAndCountsItsNativeEngineUntilTheConnectionEnds() {
        this.runner.withPropertyValues("sockstate.listeners.echo.port=0", "sockstate.listeners.echo.ssl.provider=openssl").run((context) -> {
            assertThat(context).hasNotFailed();
            int port = context.getEnvironment().getProperty("local.sockstate.echo.port", Integer.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            try (SSLSocket client = (SSLSocket) TlsClients.client(null).getSocketFactory().createSocket(InetAddress.getLoopbackAddress(),
                    port)) {
                client.setSoTimeout(5000);
                assertThat(TlsClients.ask(client.getOutputStream(), client.getInputStream(), "hello", "TLSv1.3 hello")).isEqualTo("TLSv1.3 hello");
                assertThat(nativeEngines(meters, "listener", "echo")).as("while the connection is open").isEqualTo(1);
            }
            await(() -> nativeEngines(meters, "listener", "echo") == 0, "the engine freed with its connection");
        });
    }

    @Test
    void aClientOnOpenSslTalksToAListenerOnOpenSslChosenAutomatically() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        this.runner.withPropertyValues("sockstate.listeners.echo.port=" + port, "sockstate.listeners.echo.ssl.provider=auto",
                "sockstate.clients.echoer.address=127.0.0.1:" + port, "sockstate.clients.echoer.framing.type=line",
                "sockstate.clients.echoer.ssl.bundle=trust", "sockstate.clients.echoer.ssl.server-name=localhost",
                "sockstate.clients.echoer.ssl.provider=openssl").run((context) -> {
                    assertThat(context).hasNotFailed();
                    SocketClient echoer = context.getBean(SocketServer.class).client("echoer");
                    await(() -> !echoer.connections().isEmpty(), "the client to connect");
                    assertThat(echoer.request("hello", String.class).get(5, TimeUnit.SECONDS)).isEqualTo("TLSv1.3 hello");
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(nativeEngines(meters, "client", "echoer")).as("the client's").isEqualTo(1);
                    assertThat(nativeEngines(meters, "listener", "echo")).as("the listener's, chosen automatically").isEqualTo(1);
                });
    }

    @Test
    void anEngineThatIsNoneOfTheThreeFailsStartUpNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.echo.port=0", "sockstate.listeners.echo.ssl.provider=boringssl").run((context) -> {
            BindException failure = StartupFailures.find(context, BindException.class);
            assertThat(failure.getProperty().getName()).hasToString("sockstate.listeners.echo.ssl.provider");
            assertThat(failure.getProperty().getValue()).isEqualTo("boringssl");
        });
    }

    private static double nativeEngines(MeterRegistry meters, String tag, String name) {
        return meters.get("sockstate.tls.engines.native").tag(tag, name).gauge().value();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    @SocketHandler("echo")
    static class Echo {

        @OnData
        void answer(Connection connection, ByteBuffer line) {
            String text = StandardCharsets.US_ASCII.decode(line).toString();
            connection.write((connection.tlsSession().getProtocol() + " " + text).getBytes(StandardCharsets.US_ASCII));
        }
    }
}
