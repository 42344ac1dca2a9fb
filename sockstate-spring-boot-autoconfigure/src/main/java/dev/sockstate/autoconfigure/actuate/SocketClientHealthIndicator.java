package dev.sockstate.autoconfigure.actuate;

import dev.sockstate.server.Connection;
import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.engine.SocketServer;
import java.util.List;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * One outbound client: UP while a connection of its pool is open (always, for a client that keeps no
 * pool); DOWN with its last failure otherwise (its backend refused, did not answer, or is being
 * connected to again); OUT_OF_SERVICE while the server is stopped. Its details name the addresses,
 * the pool's size and the connections open.
 */
final class SocketClientHealthIndicator extends AbstractHealthIndicator {

    private final SocketServer server;

    private final ClientSettings settings;

    SocketClientHealthIndicator(SocketServer server, ClientSettings settings) {
        super("Socket client health check failed");
        this.server = server;
        this.settings = settings;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("addresses", SockstateEndpoint.addresses(this.settings)).withDetail("poolSize", this.settings.poolSize());
        if (!this.server.isRunning()) {
            builder.outOfService().withDetail("reason", "the socket server is not running");
            return;
        }
        SocketClient client = this.server.client(this.settings.name());
        List<Connection> open = client.connections();
        builder.withDetail("connections", open.size());
        if (this.settings.poolSize() == 0 || !open.isEmpty()) {
            builder.up();
            return;
        }
        try {
            client.connection();
            // Opened since the count was read.
            builder.up();
        }
        catch (ClientException ex) {
            builder.down().withDetail("reason", ex.getMessage());
        }
    }
}
