package dev.sockstate.autoconfigure.metrics;

import dev.sockstate.autoconfigure.SocketListenerAddedEvent;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.heartbeat.Heartbeat;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Supplier;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationListener;

/**
 * The heartbeats of the listeners that have one: {@code sockstate.heartbeats}, by listener and outcome
 * ({@code sent}: pings that went out; {@code timed-out}: connections aborted because nothing answered).
 */
final class HeartbeatMeters implements SmartInitializingSingleton, ApplicationListener<SocketListenerAddedEvent> {

    /** The meters' description, a listener's and a client's. */
    static final String DESCRIPTION = "Heartbeat pings sent on quiet connections (sent), and connections aborted because their ping"
            + " went unanswered in time (timed-out)";

    private final SocketServer server;

    private final MeterRegistry registry;

    HeartbeatMeters(SocketServer server, MeterRegistry registry) {
        this.server = server;
        this.registry = registry;
    }

    /** Registers the meters once every singleton is made (the server's settings hold the heartbeats, made with it). */
    @Override
    public void afterSingletonsInstantiated() {
        this.server.listenerSettings().forEach(this::register);
    }

    /** A listener added while the server runs: its heartbeat is counted as a configured one's. */
    @Override
    public void onApplicationEvent(SocketListenerAddedEvent event) {
        if (event.getSocketServer() == this.server) {
            register(event.getSettings());
        }
    }

    private void register(ListenerSettings listener) {
        MeterRegistry registry = this.registry;
        for (Supplier<?> stage : listener.connection().stages()) {
            if (stage instanceof Heartbeat heartbeat) {
                FunctionCounter.builder("sockstate.heartbeats", heartbeat, Heartbeat::pings)
                        .description(HeartbeatMeters.DESCRIPTION)
                        .tag("listener", listener.name()).tag("outcome", "sent").register(registry);
                FunctionCounter.builder("sockstate.heartbeats", heartbeat, Heartbeat::timeouts)
                        .description(HeartbeatMeters.DESCRIPTION)
                        .tag("listener", listener.name()).tag("outcome", "timed-out").register(registry);
            }
        }
    }
}
