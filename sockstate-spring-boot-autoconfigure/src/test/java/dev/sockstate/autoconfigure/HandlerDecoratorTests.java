package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/** {@link HandlerDecorator} beans wrap each listener's handler in their order, the first outermost. */
class HandlerDecoratorTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateAutoConfiguration.class))
            .withUserConfiguration(TestHandlers.EchoConfiguration.class, Decorators.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s", "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0");

    @Test
    void decoratorsWrapTheHandlerTheFirstOutermost() {
        this.runner.run((context) -> {
            int port = context.getEnvironment().getProperty("local.sockstate.echo.port", Integer.class);
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                client.setSoTimeout(5000);
                client.getOutputStream().write(new byte[] { 1, 2 });
                assertThat(client.getInputStream().readNBytes(2)).containsExactly(1, 2);
            }
            assertThat(context.getBean(Decorators.class).calls).startsWith("outer", "inner");
        });
    }

    @Test
    void aDecoratorThatReturnsNoHandlerFailsStartUpNamingIt() {
        this.runner.withBean("nothing", HandlerDecorator.class, () -> new HandlerDecorator() {
            @Override
            public ConnectionHandler decorate(String listener, ConnectionHandler handler) {
                return null;
            }

            @Override
            public String toString() {
                return "nothing";
            }
        }).run((context) -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("HandlerDecorator nothing returned no handler for listener 'echo'"));
    }

    @Configuration(proxyBeanMethods = false)
    static class Decorators {

        final List<String> calls = new CopyOnWriteArrayList<>();

        @Bean
        @Order(2)
        HandlerDecorator inner() {
            return recording("inner");
        }

        @Bean
        @Order(1)
        HandlerDecorator outer() {
            return recording("outer");
        }

        private HandlerDecorator recording(String name) {
            List<String> calls = this.calls;
            return new HandlerDecorator() {
                @Override
                public ConnectionHandler decorate(String listener, ConnectionHandler handler) {
                    return new ConnectionHandler() {
                        @Override
                        public void onData(Connection connection, ByteBuffer data) throws Exception {
                            calls.add(name);
                            handler.onData(connection, data);
                        }

                        @Override
                        public void onClose(Connection connection) {
                            handler.onClose(connection);
                        }
                    };
                }
            };
        }
    }
}
