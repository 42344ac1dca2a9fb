package dev.sockstate.autoconfigure;

import dev.sockstate.server.BoundListener;
import dev.sockstate.server.engine.SocketServer;
import java.util.List;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationEvent;

/**
 * Published once the socket server started and its listeners are bound, as Spring Boot's
 * {@code WebServerInitializedEvent} is for the web server: an application listens for it to learn
 * the bound ports (ephemeral ones among them) without polling.
 */
public class SocketServerStartedEvent extends ApplicationEvent {

    private final transient ApplicationContext applicationContext;

    /**
     * @param server the server that started
     * @param applicationContext the context whose lifecycle started it
     */
    public SocketServerStartedEvent(SocketServer server, ApplicationContext applicationContext) {
        super(server);
        this.applicationContext = applicationContext;
    }

    /** @return the server that started */
    public SocketServer getSocketServer() {
        return (SocketServer) getSource();
    }

    /** @return its listeners as bound, with their ports */
    public List<BoundListener> getListeners() {
        return getSocketServer().listeners();
    }

    /** @return the context whose lifecycle started the server */
    public ApplicationContext getApplicationContext() {
        return this.applicationContext;
    }
}
