package dev.sockstate.autoconfigure.actuate;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.engine.SocketServer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code sockstate} health indicator. It joins the readiness group (see
 * {@link ReadinessGroupEnvironmentPostProcessor}), so traffic stops while the server drains.
 */
@AutoConfiguration(after = SockstateAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.AbstractHealthIndicator")
@ConditionalOnBean(SocketServer.class)
@ConditionalOnEnabledHealthIndicator("sockstate")
public class SockstateHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "sockstateHealthIndicator")
    SockstateHealthIndicator sockstateHealthIndicator(SocketServer server) {
        return new SockstateHealthIndicator(server);
    }
}
