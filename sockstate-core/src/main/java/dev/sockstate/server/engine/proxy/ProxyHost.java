package dev.sockstate.server.engine.proxy;

import dev.sockstate.server.proxy.ProxyHeader;
import java.net.SocketAddress;

/**
 * What the {@link ProxyStage} needs of its connection, and nothing more: the socket's peer, where the
 * header goes once read, the deadline's check, and the log of refusals. The owner's thread only, but for
 * what the timer reads.
 */
public interface ProxyHost {

    /** @return the socket's peer: the balancer, or a direct client */
    SocketAddress socketPeer();

    /** @param header the header read: the connection's peer becomes the client it names */
    void proxied(ProxyHeader header);

    /** @param stage the stage while it waits for a header, whose deadline the timer checks; {@code null} once it ended */
    void headerPending(ProxyStage stage);

    /** @param message why a header was refused, naming the listener's connection: logged at most once a second */
    void headerRefused(String message);
}
