package dev.sockstate.server;

import dev.sockstate.port.PeerAddress;
import java.nio.ByteBuffer;

/** Receives the datagrams of a UDP listener. */
@FunctionalInterface
public interface DatagramHandler {

    /**
     * A datagram arrived. The buffer and the sender belong to the worker and are valid only during
     * the call.
     * @param endpoint the listener's socket, to reply with
     * @param data the datagram, from position to limit
     * @param sender where it came from
     * @throws Exception logged once with the listener's name and counted; the listener goes on
     */
    void onDatagram(DatagramEndpoint endpoint, ByteBuffer data, PeerAddress sender) throws Exception;
}
