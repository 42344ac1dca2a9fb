package dev.sockstate.autoconfigure.observation;

import dev.sockstate.autoconfigure.HandlerDecorator;
import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.engine.SocketServer;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * An observation around every handler call, when {@code sockstate.observations.enabled} is set and
 * an {@link ObservationRegistry} exists: with a tracer, a span per call; with a meter registry, a
 * timer {@code sockstate.handler.call} by listener and event.
 */
@AutoConfiguration(after = SockstateAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ SocketServer.class, ObservationRegistry.class })
@ConditionalOnBooleanProperty("sockstate.observations.enabled")
public final class SockstateObservationAutoConfiguration {

    @Bean
    HandlerDecorator sockstateObservingHandlerDecorator(ObservationRegistry registry,
            ObjectProvider<SocketHandlerObservationConvention> convention) {
        return new ObservingHandlerDecorator(registry, convention.getIfAvailable());
    }
}
