package dev.sockstate.autoconfigure.actuate;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.autoconfigure.SockstateProperties;
import dev.sockstate.server.engine.SocketServer;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * The {@code sockstate} health indicator, and {@code sockstateClients}, a composite of one indicator
 * per outbound client ({@link SocketClientHealthIndicator}). With the availability probes on (Spring
 * Boot's default) the server's joins the readiness group ({@link SockstateReadinessGroup}), so traffic
 * stops while the server is down or drains; a client's only with {@code sockstate.clients.<name>.health.readiness}.
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

    /** {@code /actuator/health/sockstateClients/<name>}: each client's health. */
    @Bean
    @Conditional(OnClientsCondition.class)
    @ConditionalOnMissingBean(name = "sockstateClientsHealthContributor")
    CompositeHealthContributor sockstateClientsHealthContributor(SocketServer server) {
        Map<String, HealthContributor> clients = new LinkedHashMap<>();
        server.clientSettings().forEach((client) -> clients.put(client.name(), new SocketClientHealthIndicator(server, client)));
        return CompositeHealthContributor.fromMap(clients);
    }

    @Bean
    @ConditionalOnBooleanProperty(name = "management.endpoint.health.probes.enabled", matchIfMissing = true)
    static SockstateReadinessGroup sockstateReadinessGroup(ObjectProvider<SockstateProperties> properties) {
        return new SockstateReadinessGroup(() -> properties.getObject().getClients().entrySet().stream()
                .filter((client) -> client.getValue().getHealth().isReadiness()).map(Map.Entry::getKey)
                .collect(Collectors.toCollection(LinkedHashSet::new)));
    }
}
