package dev.sockstate.server.engine.proxy;

import dev.sockstate.server.proxy.ProxyHeader;
import java.net.SocketAddress;

/**
 * What the {@link ProxyStage} needs of its connection, and nothing more: the socket's peer, where the
 * header goes once read, and the log of refusals. The owner's thread only.
 */
public interface ProxyHost {

    /** @return the socket's peer: the balancer, or a direct client */
    SocketAddress socketPeer();

    /** @param header the header read: the connection's peer becomes the client it names */
    void proxied(ProxyHeader header);

    /** @param message why a header was refused, naming the listener's connection: logged at most once a second */
    void headerRefused(String message);
}
