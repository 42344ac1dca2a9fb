package dev.sockstate.autoconfigure;

import static dev.sockstate.port.SocketReads.readUntilClosed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.metrics.SockstateMetricsAutoConfiguration;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.framing.FrameDecoder;
import dev.sockstate.server.framing.FrameEncoder;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.spring.handler.OnDatagram;
import dev.sockstate.spring.handler.SocketHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/** {@code sockstate.listeners.<name>.framing.*}: each framing from properties, and the properties that cannot frame. */
class FramingPropertiesTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withUserConfiguration(TestHandlers.EchoConfiguration.class)
            .withPropertyValues("sockstate.workers.threads=2", "sockstate.shutdown.timeout=5s", "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0");

    @Test
    void lineFramingHandsTheHandlerWholeLinesAndFramesItsReplies() {
        this.runner.withPropertyValues("sockstate.listeners.echo.framing.type=line").run((context) -> {
            assertThat(context).hasNotFailed();
            try (Socket client = connect(context)) {
                client.getOutputStream().write("one\r\ntwo\nthr".getBytes(StandardCharsets.US_ASCII));
                client.getOutputStream().write("ee\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(read(client.getInputStream(), 14)).isEqualTo("one\ntwo\nthree\n");
            }
        });
    }

    @Test
    void everyFramingPropertyReachesTheRuntime() {
        this.runner.withPropertyValues("sockstate.listeners.echo.framing.type=length-field",
                "sockstate.listeners.echo.framing.length-field.offset=1", "sockstate.listeners.echo.framing.length-field.length=2",
                "sockstate.listeners.echo.framing.length-field.byte-order=little-endian",
                "sockstate.listeners.echo.framing.length-field.adjustment=3", "sockstate.listeners.echo.framing.max-frame-size=1KB")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    Framing framing = framing(context);
                    assertThat(framing.maxFrameSize()).isEqualTo(1024);
                    assertThat(framing.decoder()).hasToString(
                            "length-field (offset 1, 2 bytes LITTLE_ENDIAN, adjustment 3, header stripped)");
                    try (Socket client = connect(context)) {
                        // A type byte, a 2-byte little-endian length that leaves out 3 of the bytes after it, the content.
                        client.getOutputStream().write(new byte[] { 9, 2, 0, 'h', 'e', 'l', 'l', 'o' });
                        ByteBuffer reply = ByteBuffer.wrap(client.getInputStream().readNBytes(8)).order(ByteOrder.LITTLE_ENDIAN);
                        assertThat(reply.get(0)).as("the stripped bytes before the field, written as zeros").isZero();
                        assertThat(reply.getShort(1)).isEqualTo((short) 2);
                        assertThat(new String(reply.array(), 3, 5, StandardCharsets.US_ASCII)).isEqualTo("hello");
                    }
                });
    }

    @Test
    void theOtherBuiltInFramingsComeFromTheirProperties() {
        this.runner.withPropertyValues("sockstate.listeners.echo.framing.type=delimiter", "sockstate.listeners.echo.framing.delimiter=||")
                .run((context) -> assertThat(framing(context).decoder()).hasToString("delimiter 7c7c"));
        this.runner.withPropertyValues("sockstate.listeners.echo.framing.type=fixed", "sockstate.listeners.echo.framing.fixed-length=12B")
                .run((context) -> assertThat(framing(context).decoder()).hasToString("fixed 12 bytes"));
        this.runner.withPropertyValues("sockstate.listeners.echo.framing.type=octet-counting")
                .run((context) -> assertThat(framing(context).decoder()).hasToString("octet-counting"));
        this.runner.run((context) -> assertThat(framing(context)).as("no framing unless asked").isNull());
    }

    @Test
    void customFramingTakesTheDecoderAndEncoderBeanTheListenerNames() {
        this.runner.withUserConfiguration(CodecConfiguration.class)
                .withPropertyValues("sockstate.listeners.echo.framing.type=custom", "sockstate.listeners.echo.framing.codec=pairs")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(framing(context).decoder()).isSameAs(context.getBean("pairs"));
                    assertThat(framing(context).encoder()).isSameAs(context.getBean("pairs"));
                    try (Socket client = connect(context)) {
                        client.getOutputStream().write("abcde".getBytes(StandardCharsets.US_ASCII));
                        assertThat(read(client.getInputStream(), 4)).isEqualTo("abcd");
                    }
                });
    }

    @Test
    void aFrameOverTheLimitClosesItsConnectionOnlyAndIsCounted() {
        this.runner.withConfiguration(AutoConfigurations.of(SockstateMetricsAutoConfiguration.class))
                .withBean(SimpleMeterRegistry.class)
                .withPropertyValues("sockstate.listeners.echo.framing.type=line", "sockstate.listeners.echo.framing.max-frame-size=8B")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    try (Socket served = connect(context); Socket over = connect(context)) {
                        over.getOutputStream().write("much too long\n".getBytes(StandardCharsets.US_ASCII));
                        assertThat(readUntilClosed(over.getInputStream())).isEmpty();
                        served.getOutputStream().write("short\n".getBytes(StandardCharsets.US_ASCII));
                        assertThat(read(served.getInputStream(), 6)).isEqualTo("short\n");
                    }
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get("sockstate.frames.rejected").tag("listener", "echo").counter().count()).isEqualTo(1);
                });
    }

    @Test
    void framingThatCannotWorkFailsStartupNamingTheProperty() {
        assertInvalid("sockstate.listeners.echo.framing.delimiter", "sockstate.listeners.echo.framing.type=delimiter");
        assertInvalid("sockstate.listeners.echo.framing.fixed-length", "sockstate.listeners.echo.framing.type=fixed");
        assertInvalid("sockstate.listeners.echo.framing.type", "sockstate.listeners.echo.framing.type=length-field",
                "sockstate.listeners.echo.framing.length-field.length=5");
        assertInvalid("sockstate.listeners.echo.framing.max-frame-size", "sockstate.listeners.echo.framing.type=line",
                "sockstate.listeners.echo.framing.max-frame-size=0B");
        assertInvalid("sockstate.listeners.echo.framing.max-frame-size", "sockstate.listeners.echo.framing.type=fixed",
                "sockstate.listeners.echo.framing.fixed-length=128KB");
        assertInvalid("sockstate.listeners.echo.framing.codec", "sockstate.listeners.echo.framing.type=custom");
        assertInvalid("sockstate.listeners.echo.framing.codec", "sockstate.listeners.echo.framing.type=custom",
                "sockstate.listeners.echo.framing.codec=nosuchbean");
        assertInvalid("sockstate.listeners.echo.framing.codec", "sockstate.listeners.echo.framing.type=line",
                "sockstate.listeners.echo.framing.codec=pairs");
        this.runner.withUserConfiguration(NotACodecConfiguration.class)
                .withPropertyValues("sockstate.listeners.echo.framing.type=custom", "sockstate.listeners.echo.framing.codec=text")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class)).hasMessageContaining("is a java.lang.String, not a FrameDecoder"));
        this.runner.withUserConfiguration(DatagramConfiguration.class)
                .withPropertyValues("sockstate.listeners.udp.protocol=udp", "sockstate.listeners.udp.address=127.0.0.1", "sockstate.listeners.udp.port=0",
                        "sockstate.listeners.udp.framing.type=line")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class).getName()).hasToString("sockstate.listeners.udp.framing.type"));
    }

    @Test
    void anUnfinishedFrameIsBoundedInTimeAndTheListenersUnfinishedFramesInBytes() {
        this.runner.withPropertyValues("sockstate.listeners.echo.framing.type=line").run((context) -> {
            Framing framing = framing(context);
            assertThat(framing.frameTimeout()).as("the default").isEqualTo(Duration.ofMinutes(1));
            assertThat(framing.maxUnfinishedBytes()).isEqualTo(64L * 1024 * 1024);
            assertThat(context.getBean(SocketServer.class).listenerSettings().get(0).connection().idleTimeout()).isEqualTo(Duration.ofHours(1));
        });
        this.runner.withPropertyValues("sockstate.listeners.echo.framing.type=line", "sockstate.listeners.echo.framing.frame-timeout=300ms",
                "sockstate.listeners.echo.framing.max-unfinished-bytes=1MB", "sockstate.listeners.echo.idle-timeout=0").run((context) -> {
                    Framing framing = framing(context);
                    assertThat(framing.frameTimeout()).isEqualTo(Duration.ofMillis(300));
                    assertThat(framing.maxUnfinishedBytes()).isEqualTo(1024 * 1024);
                    assertThat(context.getBean(SocketServer.class).listenerSettings().get(0).connection().idleTimeout()).as("never").isNull();
                    try (Socket client = connect(context)) {
                        client.getOutputStream().write("no end".getBytes(StandardCharsets.US_ASCII));
                        long started = System.nanoTime();
                        assertThat(client.getInputStream().read()).as("closed by the frame timeout").isEqualTo(-1);
                        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(4));
                    }
                });
        assertInvalid("sockstate.listeners.echo.framing.frame-timeout", "sockstate.listeners.echo.framing.type=line",
                "sockstate.listeners.echo.framing.frame-timeout=-1s");
        assertInvalid("sockstate.listeners.echo.framing.frame-timeout", "sockstate.listeners.echo.framing.type=line",
                "sockstate.listeners.echo.framing.frame-timeout=300000d");
        assertInvalid("sockstate.listeners.echo.framing.max-unfinished-bytes", "sockstate.listeners.echo.framing.type=line",
                "sockstate.listeners.echo.framing.max-unfinished-bytes=1KB");
    }

    private void assertInvalid(String property, String... properties) {
        this.runner.withUserConfiguration(CodecConfiguration.class).withPropertyValues(properties)
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class).getName()).hasToString(property));
    }

    private static Framing framing(AssertableApplicationContext context) {
        assertThat(context).hasNotFailed();
        ListenerSettings echo = context.getBean(SocketServer.class).listenerSettings().get(0);
        return echo.connection().framing();
    }

    private static Socket connect(AssertableApplicationContext context) throws Exception {
        Socket client = new Socket(InetAddress.getLoopbackAddress(), context.getEnvironment().getProperty("local.sockstate.echo.port",
                Integer.class));
        client.setSoTimeout(5000);
        return client;
    }

    private static String read(InputStream in, int bytes) throws Exception {
        return new String(in.readNBytes(bytes), StandardCharsets.US_ASCII);
    }

    /** Frames of two bytes, written as they are. */
    static final class Pairs implements FrameDecoder, FrameEncoder {

        @Override
        public long frameLength(ByteBuffer in) {
            return 2;
        }

        @Override
        public int overhead(int contentLength) {
            return 0;
        }

        @Override
        public void encode(ByteBuffer content, ByteBuffer out) {
            out.put(content);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CodecConfiguration {

        @Bean
        Pairs pairs() {
            return new Pairs();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NotACodecConfiguration {

        @Bean
        String text() {
            return "not a codec";
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import(TestHandlers.EchoConfiguration.class)
    static class DatagramConfiguration {

        @Bean
        UdpEcho udpEcho() {
            return new UdpEcho();
        }
    }

    @SocketHandler("udp")
    static class UdpEcho {

        @OnDatagram
        byte[] echo(byte[] datagram) {
            return datagram;
        }
    }
}
