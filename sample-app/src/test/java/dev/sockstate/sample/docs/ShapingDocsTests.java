package dev.sockstate.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.shaping.Shaping;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The traffic shaping example of the listeners page ({@code docs/shaping.yml}, on an ephemeral port): its
 * keys bind to the rates they describe, and an echo of 2 MiB through it takes the two seconds its write
 * rate of 1 MiB a second asks (the read rate lifted, so that only the write rate holds it back).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShapingDocsTests {

    @SocketHandler("tenants")
    static class Echo {

        @OnData
        ByteBuffer echo(ByteBuffer data) {
            return data;
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateAutoConfiguration.class))
            .withInitializer(DocsYaml.load("docs/shaping.yml"))
            .withPropertyValues("sockstate.listeners.tenants.address=127.0.0.1", "sockstate.listeners.tenants.port=0",
                    "sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s")
            .withUserConfiguration(Echo.class);

    @Test
    void theDocumentedRatesBind() {
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(SocketServer.class).listenerSettings("tenants").connection().shaping())
                    .isEqualTo(new Shaping(256 * 1024, 1024 * 1024, 0, 8 * 1024 * 1024));
        });
    }

    @Test
    void anEchoTakesTheTimeItsWriteRateAsks() {
        this.runner.run((context) -> {
            SocketServer server = context.getBean(SocketServer.class);
            server.changeShaping("tenants", server.listener("tenants").shaping().withConnection(0, 1024 * 1024));
            int bytes = 2 * 1024 * 1024;
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.listener("tenants").portNumber())) {
                client.setSoTimeout(10_000);
                long start = System.nanoTime();
                Thread writer = new Thread(() -> {
                    try {
                        client.getOutputStream().write(new byte[bytes]);
                    }
                    catch (java.io.IOException ex) {
                        // The read below fails the test.
                    }
                });
                writer.start();
                InputStream in = client.getInputStream();
                assertThat(in.readNBytes(bytes)).hasSize(bytes);
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                // 2 MiB at 1 MiB a second, less the tenth of a second's burst it starts with.
                assertThat(millis).isBetween(1700L, 2600L);
                writer.join(5000);
            }
        });
    }
}
