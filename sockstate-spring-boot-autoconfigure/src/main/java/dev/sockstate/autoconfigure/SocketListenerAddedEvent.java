package dev.sockstate.autoconfigure;

import dev.sockstate.server.BoundListener;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.engine.SocketServer;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEvent;

/**
 * Published once a listener was added to the socket server through the {@link SocketListenerRegistry}:
 * what counts a configured listener's parts (the meters of its heartbeat, say) counts it too.
 */
public class SocketListenerAddedEvent extends ApplicationEvent {

    private final transient ListenerSettings settings;

    private final transient @Nullable BoundListener listener;

    /**
     * @param server the server the listener was added to
     * @param settings the listener's settings
     * @param listener the listener as bound, {@code null} when the server does not run (it is bound at its start)
     */
    public SocketListenerAddedEvent(SocketServer server, ListenerSettings settings, @Nullable BoundListener listener) {
        super(server);
        this.settings = settings;
        this.listener = listener;
    }

    /** @return the server the listener was added to */
    public SocketServer getSocketServer() {
        return (SocketServer) getSource();
    }

    /** @return the listener's settings */
    public ListenerSettings getSettings() {
        return this.settings;
    }

    /** @return the listener as bound, with its port; {@code null} when the server does not run */
    public @Nullable BoundListener getListener() {
        return this.listener;
    }
}
