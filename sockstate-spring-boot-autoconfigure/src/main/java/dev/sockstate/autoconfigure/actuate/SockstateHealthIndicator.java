package dev.sockstate.autoconfigure.actuate;

import dev.sockstate.server.BoundListener;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.WorkerGroupState;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP while the server runs, every port is open, every worker thread is alive and every listener is
 * bound; OUT_OF_SERVICE while it is stopped or draining on shutdown; DOWN with the reason otherwise.
 * Its details name the backend the server runs on, its worker groups and its listeners.
 */
public class SockstateHealthIndicator extends AbstractHealthIndicator {

    private final SocketServer server;

    /** @param server the server */
    public SockstateHealthIndicator(SocketServer server) {
        super("Socket server health check failed");
        this.server = server;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        if (!this.server.isRunning()) {
            builder.outOfService().withDetail("reason", "the socket server is not running");
            return;
        }
        List<WorkerGroupState> groups = this.server.workerGroups();
        List<BoundListener> listeners = this.server.listeners();
        Map<String, Object> groupDetails = new LinkedHashMap<>();
        String problem = null;
        for (WorkerGroupState group : groups) {
            long alive = group.workers().stream().filter(WorkerGroupState.WorkerState::alive).count();
            groupDetails.put(group.name(), Map.of("portOpen", group.portOpen(), "workers", group.workers().size(), "alive", alive));
            if (!group.portOpen()) {
                problem = "the notification port of worker group '" + group.name() + "' is closed";
            }
            else if (alive < group.workers().size()) {
                problem = (group.workers().size() - alive) + " worker(s) of group '" + group.name() + "' died";
            }
        }
        Map<String, Object> listenerDetails = new LinkedHashMap<>();
        for (BoundListener listener : listeners) {
            // A Unix domain socket has no port: its path instead.
            listenerDetails.put(listener.name(), Map.of((listener.portNumber() < 0) ? "address" : "port",
                    (listener.portNumber() < 0) ? "unix:" + listener.address() : listener.portNumber(),
                    "connections", listener.activeConnections(), "serving", listener.serving()));
            if (!listener.serving()) {
                problem = "listener '" + listener.name() + "' stopped serving";
            }
        }
        if (listeners.size() < this.server.listenerSettings().size()) {
            problem = "not every listener is bound";
        }
        builder.withDetail("backend", this.server.backendName()).withDetail("groups", groupDetails)
                .withDetail("listeners", listenerDetails);
        if (problem != null) {
            builder.down().withDetail("reason", problem);
        }
        else {
            builder.up();
        }
    }
}
