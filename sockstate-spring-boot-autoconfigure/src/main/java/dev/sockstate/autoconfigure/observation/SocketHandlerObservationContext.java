package dev.sockstate.autoconfigure.observation;

import io.micrometer.observation.Observation;
import java.net.SocketAddress;
import org.jspecify.annotations.Nullable;

/** What an observation of one handler call knows: the listener, the event handled and the peer. */
public class SocketHandlerObservationContext extends Observation.Context {

    private final String listener;

    private final String protocol;

    private final String event;

    private final @Nullable SocketAddress peer;

    /**
     * @param listener the listener's name
     * @param protocol {@code tcp} or {@code udp}
     * @param event the call: {@code open}, {@code data}, {@code writable}, {@code hangup}, {@code error},
     * {@code close} or {@code datagram}
     * @param peer the remote address of the connection or the datagram's sender (an IP address and
     * port, or a Unix domain socket's path), {@code null} if unknown
     */
    public SocketHandlerObservationContext(String listener, String protocol, String event, @Nullable SocketAddress peer) {
        this.listener = listener;
        this.protocol = protocol;
        this.event = event;
        this.peer = peer;
    }

    /** @return the listener's name */
    public String getListener() {
        return this.listener;
    }

    /** @return {@code tcp} or {@code udp} */
    public String getProtocol() {
        return this.protocol;
    }

    /** @return the handler method's event: {@code open}, {@code data}, {@code writable}, {@code hangup}, {@code error}, {@code close} or {@code datagram} */
    public String getEvent() {
        return this.event;
    }

    /** @return the remote address of the connection or the datagram's sender, {@code null} if unknown */
    public @Nullable SocketAddress getPeer() {
        return this.peer;
    }
}
