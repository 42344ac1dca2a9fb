package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What a started socket server tells the application, as Spring Boot's web server does: a
 * {@link SocketServerStartedEvent} with the bound listeners, and each listener's port in the
 * environment of the context that runs it and of its parents.
 */
class SocketServerStartedTests {

    @Test
    void theStartIsPublishedAndThePortsReachTheParentContext() {
        Events events = new Events();
        SpringApplicationBuilder parent = new SpringApplicationBuilder(Parent.class).web(WebApplicationType.NONE);
        try (ConfigurableApplicationContext child = parent.child(Child.class).web(WebApplicationType.NONE)
                .listeners(events).properties("sockstate.workers.threads=1", "sockstate.listeners.echo.address=127.0.0.1",
                        "sockstate.listeners.echo.port=0", "sockstate.shutdown.timeout=1s")
                .run()) {
            int port = child.getEnvironment().getProperty("local.sockstate.echo.port", Integer.class);
            assertThat(port).isPositive();
            assertThat(child.getParent().getEnvironment().getProperty("local.sockstate.echo.port", Integer.class))
                    .as("in the parent context too").isEqualTo(port);
            assertThat(events.started).singleElement().satisfies((event) -> {
                assertThat(event.getApplicationContext()).isSameAs(child);
                assertThat(event.getListeners()).singleElement().satisfies((listener) -> {
                    assertThat(listener.name()).isEqualTo("echo");
                    assertThat(listener.portNumber()).isEqualTo(port);
                });
            });
        }
    }

    /** Collects the starts. */
    static class Events implements ApplicationListener<SocketServerStartedEvent> {

        final List<SocketServerStartedEvent> started = new CopyOnWriteArrayList<>();

        @Override
        public void onApplicationEvent(SocketServerStartedEvent event) {
            this.started.add(event);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Parent {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Child {

        @Bean
        TestHandlers.Echo echo() {
            return new TestHandlers.Echo();
        }
    }
}
