package dev.sockstate.autoconfigure.message;

import static dev.sockstate.port.SocketReads.readLine;
import static dev.sockstate.port.SocketReads.readUntilClosed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.autoconfigure.StartupFailures;
import dev.sockstate.autoconfigure.metrics.SockstateMetricsAutoConfiguration;
import dev.sockstate.server.Connection;
import dev.sockstate.spring.handler.OnMessage;
import dev.sockstate.spring.handler.OnOpen;
import dev.sockstate.spring.handler.SocketHandler;
import dev.sockstate.spring.handler.SocketHandlerDefinitionException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.convert.converter.Converter;

/** {@code @OnMessage} handlers on real sockets: whole frames as text or typed payloads, and replies framed. */
class OnMessageTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, SockstateMessageAutoConfiguration.class,
                    SockstateAutoConfiguration.class))
            .withPropertyValues("sockstate.workers.threads=2", "sockstate.shutdown.timeout=5s",
                    "sockstate.listeners.orders.address=127.0.0.1", "sockstate.listeners.orders.port=0", "sockstate.listeners.orders.framing.type=line");

    @Test
    void aTypedPayloadIsReadFromOneJsonDocumentPerFrameAndTheReplyWrittenAsOne() {
        this.runner.withUserConfiguration(OrdersConfiguration.class).run((context) -> {
            assertThat(context).hasNotFailed();
            try (Socket client = connect(context, "orders")) {
                assertThat(readLine(client)).as("the greeting sent from @OnOpen").isEqualTo("{\"item\":\"menu\",\"total\":0}");
                client.getOutputStream().write("{\"item\":\"tea\",\"quantity\":2}\n{\"item\":\"cake\",".getBytes(StandardCharsets.UTF_8));
                assertThat(readLine(client)).isEqualTo("{\"item\":\"tea\",\"total\":6}");
                client.getOutputStream().write("\"quantity\":1}\n".getBytes(StandardCharsets.UTF_8));
                assertThat(readLine(client)).isEqualTo("{\"item\":\"cake\",\"total\":3}");
            }
        });
    }

    @Test
    void invalidJsonClosesOnlyItsConnectionCountedAndTheNextIsServed() {
        this.runner.withUserConfiguration(OrdersConfiguration.class)
                .withConfiguration(AutoConfigurations.of(SockstateMetricsAutoConfiguration.class)).withBean(SimpleMeterRegistry.class)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    try (Socket bad = connect(context, "orders")) {
                        readLine(bad);
                        bad.getOutputStream().write("{\"item\": tea}\n".getBytes(StandardCharsets.UTF_8));
                        assertThat(readUntilClosed(bad.getInputStream())).isEmpty();
                    }
                    try (Socket good = connect(context, "orders")) {
                        readLine(good);
                        good.getOutputStream().write("{\"item\":\"tea\",\"quantity\":1}\n".getBytes(StandardCharsets.UTF_8));
                        assertThat(readLine(good)).isEqualTo("{\"item\":\"tea\",\"total\":3}");
                    }
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get("sockstate.frames.rejected").tag("listener", "orders").counter().count()).isEqualTo(1);
                    assertThat(context.getBean(Orders.class).errors).hasValue(1);
                });
    }

    @Test
    void aConverterBeanReadsAndWritesItsTypeInsteadOfJsonOverTcpAndUdp() {
        this.runner.withUserConfiguration(PointsConfiguration.class)
                .withPropertyValues("sockstate.listeners.points.address=127.0.0.1", "sockstate.listeners.points.port=0", "sockstate.listeners.points.protocol=udp")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    try (Socket client = connect(context, "orders")) {
                        client.getOutputStream().write("3:4\n".getBytes(StandardCharsets.UTF_8));
                        assertThat(readLine(client)).isEqualTo("4:3");
                    }
                    int port = context.getEnvironment().getProperty("local.sockstate.points.port", Integer.class);
                    try (DatagramSocket client = new DatagramSocket()) {
                        client.setSoTimeout(5000);
                        client.send(new DatagramPacket("5:6".getBytes(StandardCharsets.UTF_8), 3,
                                new InetSocketAddress(InetAddress.getLoopbackAddress(), port)));
                        DatagramPacket reply = new DatagramPacket(new byte[16], 16);
                        client.receive(reply);
                        assertThat(new String(reply.getData(), 0, reply.getLength(), StandardCharsets.UTF_8)).isEqualTo("6:5");
                    }
                });
    }

    @Test
    void textIsReadAndWrittenInTheListenersCharset() {
        this.runner.withUserConfiguration(ShoutConfiguration.class).withPropertyValues("sockstate.listeners.orders.charset=ISO-8859-1")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    try (Socket client = connect(context, "orders")) {
                        client.getOutputStream().write("caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
                        assertThat(client.getInputStream().readNBytes(5)).isEqualTo("CAF\u00c9\n".getBytes(StandardCharsets.ISO_8859_1));
                    }
                });
    }

    @Test
    void aTypedPayloadWithoutJacksonOrAConverterFailsStartupSayingWhatToAdd() {
        this.runner.withUserConfiguration(OrdersConfiguration.class).withClassLoader(new FilteredClassLoader("tools.jackson"))
                .run((context) -> {
                    SocketHandlerDefinitionException failure = StartupFailures.find(context, SocketHandlerDefinitionException.class);
                    assertThat(failure).hasMessageContaining("takes a " + Order.class.getName() + ", which nothing reads from a message");
                    assertThat(failure.action()).startsWith("Add Jackson");
                });
    }

    @Test
    void onMessageOnAListenerWithoutFramingFailsStartup() {
        this.runner.withUserConfiguration(OrdersConfiguration.class).withPropertyValues("sockstate.listeners.orders.framing.type=none")
                .run((context) -> {
                    SocketHandlerDefinitionException failure = StartupFailures.find(context, SocketHandlerDefinitionException.class);
                    assertThat(failure).hasMessageContaining("listener 'orders' has no framing");
                    assertThat(failure.action()).contains("sockstate.listeners.orders.framing.type");
                });
    }

    private static Socket connect(AssertableApplicationContext context, String listener) throws IOException {
        Socket client = new Socket(InetAddress.getLoopbackAddress(),
                context.getEnvironment().getProperty("local.sockstate." + listener + ".port", Integer.class));
        client.setSoTimeout(5000);
        return client;
    }

    record Order(String item, int quantity) {
    }

    record Receipt(String item, int total) {
    }

    record Point(int x, int y) {
    }

    @SocketHandler("orders")
    static class Orders {

        final AtomicInteger errors = new AtomicInteger();

        @OnOpen
        void open(Connection connection) {
            connection.send(new Receipt("menu", 0));
        }

        @OnMessage
        Receipt order(Order order) {
            return new Receipt(order.item(), order.quantity() * 3);
        }

        @dev.sockstate.spring.handler.OnError
        void error(Throwable error) {
            this.errors.incrementAndGet();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OrdersConfiguration {

        @Bean
        Orders orders() {
            return new Orders();
        }
    }

    @SocketHandler("orders")
    static class Shout {

        @OnMessage
        String shout(String text) {
            return text.toUpperCase(Locale.ROOT);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ShoutConfiguration {

        @Bean
        Shout shout() {
            return new Shout();
        }
    }

    @SocketHandler("orders")
    static class SwapOverTcp {

        @OnMessage
        Point swap(Point point) {
            return new Point(point.y(), point.x());
        }
    }

    @SocketHandler("points")
    static class SwapOverUdp {

        @OnMessage
        Point swap(Point point, InetSocketAddress sender) {
            return new Point(point.y(), point.x());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PointsConfiguration {

        @Bean
        SwapOverTcp swapOverTcp() {
            return new SwapOverTcp();
        }

        @Bean
        SwapOverUdp swapOverUdp() {
            return new SwapOverUdp();
        }

        @Bean
        Converter<byte[], Point> bytesToPoint() {
            return new Converter<byte[], Point>() {
                @Override
                public Point convert(byte[] source) {
                    String[] parts = new String(source, StandardCharsets.UTF_8).split(":");
                    return new Point(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
                }
            };
        }

        @Bean
        Converter<Point, byte[]> pointToBytes() {
            return new Converter<Point, byte[]>() {
                @Override
                public byte[] convert(Point source) {
                    return (source.x() + ":" + source.y()).getBytes(StandardCharsets.UTF_8);
                }
            };
        }
    }
}
