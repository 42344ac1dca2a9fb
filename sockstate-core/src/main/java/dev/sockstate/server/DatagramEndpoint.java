package dev.sockstate.server;

import dev.sockstate.port.PeerAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/** A UDP listener's socket as a handler sees it. */
public interface DatagramEndpoint {

    /** @return the listener's name */
    String listenerName();

    /** @return the bound address */
    InetSocketAddress localAddress();

    /**
     * Sends one datagram without blocking.
     * @param data the datagram, from position to limit; consumed when sent
     * @param target where to
     * @return whether it was sent; false when the socket's buffer is full (the datagram is dropped,
     * as UDP allows, and counted)
     */
    boolean send(ByteBuffer data, PeerAddress target);
}
