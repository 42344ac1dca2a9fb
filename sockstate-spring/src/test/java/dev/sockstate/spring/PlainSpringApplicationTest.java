package dev.sockstate.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.port.Backends;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.OnMessage;
import dev.sockstate.spring.handler.OnOpen;
import dev.sockstate.spring.handler.SocketHandler;
import dev.sockstate.spring.handler.SocketHandlers;
import dev.sockstate.spring.handler.SocketHandlers.ListenerKind;
import dev.sockstate.spring.message.ConvertingMessageMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.convert.converter.Converter;
import org.springframework.core.convert.support.DefaultConversionService;

/**
 * The handler model in a plain Spring application, with no Spring Boot on the class path: the
 * application context holds {@link SocketHandler} beans, {@link SocketHandlers#resolve} turns them
 * into the core's handlers, and the application builds and starts its {@link SocketServer} itself,
 * which serves real connections on loopback. Public API only (this package is no package of the
 * module's).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PlainSpringApplicationTest {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void springBootIsNotOnTheClassPath() {
        assertThatExceptionOfType(ClassNotFoundException.class)
                .isThrownBy(() -> Class.forName("org.springframework.boot.SpringApplication"));
    }

    @Test
    void aSocketHandlerBeanEchoesOverTcpOnAServerBuiltByHand() throws Exception {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(EchoApplication.class)) {
            SocketHandlers handlers = SocketHandlers.resolve(context, Map.of("echo", new ListenerKind(Protocol.TCP, false, null)));
            SocketServer server = server(ListenerSettings.tcp("echo").address(LOOPBACK).portNumber(0)
                    .handler(handlers.connectionHandler("echo")).build());
            server.start();
            try (Socket client = new Socket(LOOPBACK, server.listener("echo").portNumber())) {
                client.setSoTimeout(5000);
                client.getOutputStream().write("plain spring".getBytes(StandardCharsets.UTF_8));
                assertThat(new String(client.getInputStream().readNBytes(12), StandardCharsets.UTF_8)).isEqualTo("plain spring");
            }
            finally {
                server.stop(Duration.ofSeconds(5));
            }
            assertThat(context.getBean(Connections.class).opened).hasValue(1);
        }
    }

    @Test
    void anOnMessageMethodTakesAndReturnsTypesOfItsOwnThroughAConvertingMessageMapper() throws Exception {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(OrderApplication.class)) {
            DefaultConversionService converters = new DefaultConversionService();
            converters.addConverter(byte[].class, Order.class, (Converter<byte[], Order>) Order::parse);
            converters.addConverter(Receipt.class, byte[].class, (Converter<Receipt, byte[]>) Receipt::bytes);
            ConvertingMessageMapper mapper = new ConvertingMessageMapper(converters, null);
            SocketHandlers handlers = SocketHandlers.resolve(context, Map.of("orders", new ListenerKind(Protocol.TCP, true, mapper)));
            SocketServer server = server(ListenerSettings.tcp("orders").address(LOOPBACK).portNumber(0).framing(Framing.line())
                    .messageMapper(mapper).handler(handlers.connectionHandler("orders")).build());
            server.start();
            try (Socket client = new Socket(LOOPBACK, server.listener("orders").portNumber())) {
                client.setSoTimeout(5000);
                client.getOutputStream().write("tea 3\ncake 2\n".getBytes(StandardCharsets.UTF_8));
                BufferedReader replies = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
                assertThat(replies.readLine()).isEqualTo("3 x tea");
                assertThat(replies.readLine()).isEqualTo("2 x cake");
            }
            finally {
                server.stop(Duration.ofSeconds(5));
            }
        }
    }

    @Test
    void aClientHandlerBeanHearsItsConnectionOpenAndThePushesNoRequestIsOwedWhileRequestsGetTheirReplies() throws Exception {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(GatewayApplication.class)) {
            SocketHandlers handlers = SocketHandlers.resolve(context, Map.of("greeter", new ListenerKind(Protocol.TCP, true, null)),
                    Map.of("upstream", new ListenerKind(Protocol.TCP, true, null)));
            // The backend greets each connection first (a push no request is owed), then echoes each line.
            SocketServer backend = server(ListenerSettings.tcp("greeter").address(LOOPBACK).portNumber(0).framing(Framing.line())
                    .handler(handlers.connectionHandler("greeter")).build());
            backend.start();
            ClientSettings upstream = ClientSettings.builder("upstream")
                    .address(LOOPBACK.getHostAddress(), backend.listener("greeter").portNumber()).framing(Framing.line())
                    .handler(handlers.clientHandler("upstream")).build();
            SocketServer gateway = new SocketServer(Backends.select("auto"),
                    List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)), List.of(), List.of(upstream),
                    ServerObserver.NONE);
            gateway.start();
            try {
                Upstream heard = context.getBean(Upstream.class);
                assertThat(heard.pushes.poll(5, TimeUnit.SECONDS)).isEqualTo("hello");
                assertThat(heard.opened).hasValue(1);
                assertThat(gateway.client("upstream").request("ping", String.class).get(5, TimeUnit.SECONDS)).isEqualTo("ping");
                assertThat(heard.pushes).isEmpty();
            }
            finally {
                gateway.stop(Duration.ofSeconds(5));
                backend.stop(Duration.ofSeconds(5));
            }
        }
    }

    private static SocketServer server(ListenerSettings listener) {
        return new SocketServer(Backends.select("auto"), List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)),
                List.of(listener), ServerObserver.NONE);
    }

    /** A bean the handler injects, as any Spring bean would. */
    static class Connections {

        final AtomicInteger opened = new AtomicInteger();
    }

    @Configuration(proxyBeanMethods = false)
    static class EchoApplication {

        @Bean
        Connections connections() {
            return new Connections();
        }

        @Bean
        EchoHandler echoHandler(Connections connections) {
            return new EchoHandler(connections);
        }
    }

    @SocketHandler("echo")
    static class EchoHandler {

        private final Connections connections;

        EchoHandler(Connections connections) {
            this.connections = connections;
        }

        @OnOpen
        void opened(Connection connection) {
            this.connections.opened.incrementAndGet();
        }

        @OnData
        byte[] echo(byte[] data) {
            return data;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OrderApplication {

        @Bean
        OrderHandler orderHandler() {
            return new OrderHandler();
        }
    }

    @SocketHandler("orders")
    static class OrderHandler {

        @OnMessage
        Receipt order(Order order) {
            return new Receipt(order.quantity() + " x " + order.item());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class GatewayApplication {

        @Bean
        Greeter greeter() {
            return new Greeter();
        }

        @Bean
        Upstream upstream() {
            return new Upstream();
        }
    }

    @SocketHandler("greeter")
    static class Greeter {

        @OnOpen
        void greet(Connection connection) {
            connection.send("hello");
        }

        @OnMessage
        String echo(String line) {
            return line;
        }
    }

    /** The handler of the client's connections: what the backend sent that no request was owed. */
    @SocketHandler(client = "upstream")
    static class Upstream {

        final AtomicInteger opened = new AtomicInteger();

        final BlockingQueue<String> pushes = new LinkedBlockingQueue<>();

        @OnOpen
        void opened() {
            this.opened.incrementAndGet();
        }

        @OnMessage
        void pushed(String message) {
            this.pushes.add(message);
        }
    }

    /** One line: an item and a quantity. */
    record Order(String item, int quantity) {

        static Order parse(byte[] line) {
            String[] parts = new String(line, StandardCharsets.UTF_8).split(" ");
            return new Order(parts[0], Integer.parseInt(parts[1]));
        }
    }

    /** What goes back, one line. */
    record Receipt(String text) {

        byte[] bytes() {
            return this.text.getBytes(StandardCharsets.UTF_8);
        }
    }
}
