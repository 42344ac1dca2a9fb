package dev.sockstate.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.Connection;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The meters of what happens to connections: idle closes, reading paused by queued writes, the bytes queued, the pooled buffers. */
class ConnectionMetersTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateMetricsAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class).withBean(Flood.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.listeners.flood.address=127.0.0.1", "sockstate.listeners.flood.port=0",
                    "sockstate.shutdown.timeout=1s");

    @Test
    void aConnectionLeftIdleIsClosedAndCounted() {
        this.runner.withPropertyValues("sockstate.listeners.flood.idle-timeout=200ms").run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            int port = context.getEnvironment().getProperty("local.sockstate.flood.port", Integer.class);
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                client.setSoTimeout(10_000);
                assertThat(client.getInputStream().read()).as("closed by the server when idle").isEqualTo(-1);
            }
            await(() -> registry.get("sockstate.connections.idle.closed").tag("listener", "flood").counter().count(), 1);
        });
    }

    @Test
    void aPeerThatDoesNotReadPausesItsConnectionAndItsQueuedBytesShow() {
        this.runner.withPropertyValues("sockstate.listeners.flood.max-pending-write-bytes=64KB").run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            int port = context.getEnvironment().getProperty("local.sockstate.flood.port", Integer.class);
            try (Socket client = new Socket()) {
                // A small window, set before connecting: the kernel's buffers cannot take all the server writes.
                client.setReceiveBufferSize(4096);
                client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                // One byte asks for 8 MiB back, which the client never reads.
                client.getOutputStream().write(new byte[] { 1 });
                await(() -> registry.get("sockstate.connections.paused").tag("listener", "flood").counter().count(), 1);
                assertThat(registry.get("sockstate.data.pending").tag("listener", "flood").gauge().value())
                        .as("bytes queued for the peer that does not read").isGreaterThan(64 * 1024);
            }
        });
    }

    @Test
    void thePooledBuffersAFramedWriteBorrowedShowOnceMade() {
        this.runner.withBean(Lines.class).withPropertyValues("sockstate.listeners.lines.address=127.0.0.1",
                "sockstate.listeners.lines.port=0", "sockstate.listeners.lines.framing.type=line").run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("sockstate.buffers.pooled").tag("listener", "lines").gauge().value()).as("before any write").isZero();
            int port = context.getEnvironment().getProperty("local.sockstate.lines.port", Integer.class);
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                client.setSoTimeout(10_000);
                client.getOutputStream().write("hello\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(new String(client.getInputStream().readNBytes(6), StandardCharsets.US_ASCII)).isEqualTo("hello\n");
            }
            // A line written is framed into a buffer lent for the write, and kept for the next.
            assertThat(registry.get("sockstate.buffers.pooled").tag("listener", "lines").gauge().value())
                    .isEqualTo(64 * 1024);
        });
    }

    private static void await(DoubleSupplier value, double expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (value.getAsDouble() < expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(value.getAsDouble()).isEqualTo(expected);
    }

    @SocketHandler("lines")
    static class Lines {

        @OnData
        ByteBuffer echo(ByteBuffer line) {
            return line;
        }
    }

    @SocketHandler("flood")
    static class Flood {

        @OnData
        void flood(Connection connection, ByteBuffer data) {
            data.position(data.limit());
            connection.write(ByteBuffer.allocate(8 * 1024 * 1024));
        }
    }
}
