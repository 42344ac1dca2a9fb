package dev.sockstate.spring.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.port.Protocol;
import dev.sockstate.server.Connection;
import dev.sockstate.spring.handler.SocketHandlers.ListenerKind;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/** Handlers of outbound clients' connections: {@code @SocketHandler(client = ...)} beans, checked against the configured clients. */
class ClientHandlersTests {

    private static final Map<String, ListenerKind> ECHO_LISTENER = Map.of("echo", new ListenerKind(Protocol.TCP, false, null));

    private static final Map<String, ListenerKind> REDIS_CLIENT = Map.of("redis", new ListenerKind(Protocol.TCP, true, null));

    @Test
    void aClientHandlerIsFoundByTheClientItNamesBesideTheListenersHandlers() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Echo.class, Pushes.class)) {
            SocketHandlers handlers = SocketHandlers.resolve(context, ECHO_LISTENER, REDIS_CLIENT);
            assertThat(handlers.connectionHandler("echo")).isNotNull();
            assertThat(handlers.clientHandler("redis")).isNotNull();
        }
    }

    @Test
    void aClientWithoutAHandlerBeanHasNone() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Echo.class)) {
            assertThat(SocketHandlers.resolve(context, ECHO_LISTENER, REDIS_CLIENT).clientHandler("redis")).isNull();
        }
    }

    @Test
    void aHandlerNamingAClientThatIsNotConfiguredIsRefusedNamingTheConfiguredOnes() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Echo.class, Pushes.class)) {
            assertThatExceptionOfType(SocketHandlerDefinitionException.class)
                    .isThrownBy(() -> SocketHandlers.resolve(context, ECHO_LISTENER, Map.of()))
                    .withMessage("Bean 'clientHandlersTests.Pushes' handles client 'redis', which is not configured")
                    .satisfies((ex) -> assertThat(ex.action()).contains("sockstate.clients.redis"));
        }
    }

    @Test
    void twoHandlersOfOneClientAreRefused() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Echo.class, Pushes.class,
                OpensOnly.class)) {
            assertThatExceptionOfType(SocketHandlerDefinitionException.class)
                    .isThrownBy(() -> SocketHandlers.resolve(context, ECHO_LISTENER, REDIS_CLIENT))
                    .withMessageContaining("Client 'redis' has two handlers");
        }
    }

    @Test
    void aHandlerNamingBothAListenerAndAClientIsRefused() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Both.class)) {
            assertThatExceptionOfType(SocketHandlerDefinitionException.class)
                    .isThrownBy(() -> SocketHandlers.resolve(context, ECHO_LISTENER, REDIS_CLIENT))
                    .withMessageContaining("names both listener 'echo' and client 'redis'");
        }
    }

    @Test
    void aClientHandlerNamingAnApplicationProtocolIsRefused() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Echo.class, ByProtocol.class)) {
            assertThatExceptionOfType(SocketHandlerDefinitionException.class)
                    .isThrownBy(() -> SocketHandlers.resolve(context, ECHO_LISTENER, REDIS_CLIENT))
                    .withMessageContaining("serves client 'redis' and names application protocol 'resp3'")
                    .satisfies((ex) -> assertThat(ex.action()).contains("A client has one handler"));
        }
    }

    @Test
    void anOnMessageMethodOfAClientWithoutFramingIsRefusedNamingTheClientsProperty() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Echo.class, Pushes.class)) {
            assertThatExceptionOfType(SocketHandlerDefinitionException.class)
                    .isThrownBy(() -> SocketHandlers.resolve(context, ECHO_LISTENER,
                            Map.of("redis", new ListenerKind(Protocol.TCP, false, null))))
                    .withMessageContaining("but client 'redis' has no framing")
                    .satisfies((ex) -> assertThat(ex.action()).startsWith("Set sockstate.clients.redis.framing.type"));
        }
    }

    @Test
    void aClientHandlerWithoutADataMethodHearsTheEventsAndDropsTheFramesNoRequestIsOwed() throws Exception {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Echo.class, OpensOnly.class)) {
            var handler = SocketHandlers.resolve(context, ECHO_LISTENER, REDIS_CLIENT).clientHandler("redis");
            handler.onOpen(null);
            assertThat(context.getBean(OpensOnly.class).opened).isEqualTo(1);
            ByteBuffer frame = ByteBuffer.wrap("+OK".getBytes(StandardCharsets.UTF_8));
            handler.onData(null, frame);
            assertThat(frame.hasRemaining()).isFalse();
        }
    }

    @SocketHandler("echo")
    static class Echo {

        @OnData
        ByteBuffer echo(ByteBuffer data) {
            return data;
        }
    }

    @SocketHandler(client = "redis")
    static class Pushes {

        @OnMessage
        void pushed(String message) {
        }
    }

    @SocketHandler(client = "redis")
    static class OpensOnly {

        int opened;

        @OnOpen
        void opened(Connection connection) {
            this.opened++;
        }
    }

    @SocketHandler(listener = "echo", client = "redis")
    static class Both {

        @OnData
        void data(ByteBuffer data) {
        }
    }

    @SocketHandler(client = "redis", applicationProtocol = "resp3")
    static class ByProtocol {

        @OnMessage
        void message(String message) {
        }
    }
}
