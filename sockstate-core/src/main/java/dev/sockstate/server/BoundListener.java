package dev.sockstate.server;

import dev.sockstate.port.Protocol;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.admission.Refusal;
import dev.sockstate.server.shaping.Shaping;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * A running listener as seen from outside: where it is bound and what it serves.
 *
 * @param name the listener's name
 * @param protocol TCP or UDP
 * @param address the bound address, with the port the system chose for port 0; a
 * {@code UnixDomainSocketAddress} for a listener on a Unix domain socket
 * @param trigger how its sockets are registered
 * @param group its worker group
 * @param activeConnections open connections (TCP)
 * @param registrations registrations on the ports: the listener's own sockets still registered (one, or one
 * per worker with {@link AcceptMode#PER_WORKER}) and its connections'
 * @param accepted connections accepted so far
 * @param rejected connections closed at once as they were accepted: at the maximum, or refused by the
 * listener's {@link dev.sockstate.server.admission.Admission}
 * @param rejectedBy those connections by why they were refused, each reason that refused one
 * @param handlerErrors handler calls that threw, or that the handler executor refused
 * @param serving whether its socket (with {@link AcceptMode#PER_WORKER}, one of its listening sockets) is
 * registered and served: false once it stopped for good (the port refused to re-arm the last one,
 * say), or while the server stops
 * @param shaping the rates its connections read and write at now: its settings', or those a change
 * while it runs set ({@code SocketServer.changeShaping})
 */
public record BoundListener(String name, Protocol protocol, SocketAddress address, Trigger trigger, String group,
        int activeConnections, int registrations, long accepted, long rejected, Map<Refusal, Long> rejectedBy, long handlerErrors,
        boolean serving, Shaping shaping) {

    /** The counts by reason are copied. */
    public BoundListener {
        rejectedBy = Collections.unmodifiableMap(rejectedBy.isEmpty() ? new EnumMap<>(Refusal.class) : new EnumMap<>(rejectedBy));
    }

    /** @return the bound TCP or UDP port number, -1 for a Unix domain socket */
    public int portNumber() {
        return (this.address instanceof InetSocketAddress inet) ? inet.getPort() : -1;
    }
}
