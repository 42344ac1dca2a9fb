package dev.sockstate.spring.handler;

import dev.sockstate.port.PeerAddress;
import dev.sockstate.server.DatagramEndpoint;
import dev.sockstate.server.DatagramHandler;
import java.nio.ByteBuffer;

/** A {@link DatagramHandler} that calls a {@link SocketHandler} bean's {@link OnDatagram} or {@link OnMessage} method. */
final class AnnotatedDatagramHandler implements DatagramHandler {

    private final HandlerMethod datagram;

    AnnotatedDatagramHandler(HandlerMethod datagram) {
        this.datagram = datagram;
    }

    @Override
    public void onDatagram(DatagramEndpoint endpoint, ByteBuffer data, PeerAddress sender) throws Exception {
        Object reply = this.datagram.invoke(null, data, null, endpoint, sender);
        if (reply != null) {
            endpoint.send(reply, sender);
        }
    }
}
