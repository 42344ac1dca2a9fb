package dev.sockstate.autoconfigure.actuate;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.engine.SocketServer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code sockstate} health indicator. With the availability probes on (Spring Boot's default)
 * it joins the readiness group ({@link SockstateReadinessGroup}), so traffic stops while the server
 * is down or drains.
 */
@AutoConfiguration(after = SockstateAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.AbstractHealthIndicator")
@ConditionalOnBean(SocketServer.class)
@ConditionalOnEnabledHealthIndicator("sockstate")
public final class SockstateHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "sockstateHealthIndicator")
    SockstateHealthIndicator sockstateHealthIndicator(SocketServer server) {
        return new SockstateHealthIndicator(server);
    }

    @Bean
    @ConditionalOnBooleanProperty(name = "management.endpoint.health.probes.enabled", matchIfMissing = true)
    static SockstateReadinessGroup sockstateReadinessGroup() {
        return new SockstateReadinessGroup();
    }
}
