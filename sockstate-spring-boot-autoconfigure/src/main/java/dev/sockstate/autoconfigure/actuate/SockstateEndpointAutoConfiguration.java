package dev.sockstate.autoconfigure.actuate;

import dev.sockstate.autoconfigure.ClientCounts;
import dev.sockstate.autoconfigure.ListenerProperties;
import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.autoconfigure.SockstateProperties;
import dev.sockstate.port.Backend;
import dev.sockstate.server.engine.SocketServer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** The {@code sockstate} Actuator endpoint; exposed over HTTP only when the user exposes it. */
@AutoConfiguration(after = SockstateAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnBean(SocketServer.class)
@ConditionalOnAvailableEndpoint(SockstateEndpoint.class)
public final class SockstateEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    SockstateEndpoint sockstateEndpoint(SocketServer server, Backend backend, SockstateProperties properties,
            ObjectProvider<ClientCounts> clientCounts) {
        ClientCounts counts = clientCounts.getIfAvailable();
        return new SockstateEndpoint(server, backend, (listener) -> {
            ListenerProperties configured = properties.getListeners().get(listener);
            return (configured != null) ? configured.getSsl().getBundle() : null;
        }, (client) -> (counts != null) ? counts.pendingRequests(client) : 0);
    }
}
