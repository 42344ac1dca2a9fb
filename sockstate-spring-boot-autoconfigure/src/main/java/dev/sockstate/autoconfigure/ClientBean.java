package dev.sockstate.autoconfigure;

import dev.sockstate.server.Connection;
import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.client.ReplyHandler;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.shaping.Shaping;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The bean of one configured client, named after it: the server's running client, looked up on each
 * call, so that it can be injected anywhere before the server starts (with the context, after the
 * singletons) and stays true across a restart. While the server is not running it has no open
 * connection: a send fails, and a request's future or reply handler, with a {@link ClientException}
 * naming the client.
 */
final class ClientBean implements SocketClient {

    private static final Log logger = LogFactory.getLog(ClientBean.class);

    private final String name;

    private final ObjectProvider<SocketServer> servers;

    private volatile @Nullable SocketServer server;

    ClientBean(String name, ObjectProvider<SocketServer> servers) {
        this.name = name;
        this.servers = servers;
    }

    /** @return the running client */
    private SocketClient running() {
        SocketServer server = this.server;
        if (server == null) {
            server = this.servers.getObject();
            this.server = server;
        }
        if (!server.isRunning()) {
            throw notRunning("the socket server is not running (it starts with the application context, once every singleton"
                    + " exists, and stops with it)", null);
        }
        try {
            return server.client(this.name);
        }
        catch (IllegalArgumentException ex) {
            throw notRunning(ex.getMessage(), ex);
        }
    }

    private ClientException notRunning(String why, @Nullable Throwable cause) {
        return new ClientException(this.name, "Client '" + this.name + "' is not running: " + why, cause);
    }

    @Override
    public String name() {
        return this.name;
    }

    @Override
    public void send(Object message) {
        running().send(message);
    }

    @Override
    public CompletableFuture<ByteBuffer> request(Object message) {
        SocketClient client;
        try {
            client = running();
        }
        catch (ClientException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        return client.request(message);
    }

    @Override
    public void request(Object message, ReplyHandler handler) {
        SocketClient client;
        try {
            client = running();
        }
        catch (ClientException ex) {
            try {
                handler.onReply(null, ex);
            }
            catch (RuntimeException thrown) {
                // As the running client does: what a reply handler throws is logged, not the caller's.
                logger.warn("A reply handler of " + this + " failed on its request's failure (" + ex.getMessage() + ")", thrown);
            }
            return;
        }
        client.request(message, handler);
    }

    @Override
    public <T> CompletableFuture<T> request(Object message, Class<T> replyType) {
        SocketClient client;
        try {
            client = running();
        }
        catch (ClientException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        return client.request(message, replyType);
    }

    @Override
    public Connection connection() {
        return running().connection();
    }

    @Override
    public List<Connection> connections() {
        try {
            return running().connections();
        }
        catch (ClientException ex) {
            return List.of();
        }
    }

    @Override
    public Shaping changeShaping(Shaping shaping) {
        return running().changeShaping(shaping);
    }

    @Override
    public CompletableFuture<Connection> open() {
        SocketClient client;
        try {
            client = running();
        }
        catch (ClientException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        return client.open();
    }

    @Override
    public String toString() {
        return "SocketClient '" + this.name + "'";
    }
}
