package dev.sockstate.server.client;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Objects;

/**
 * A client's heartbeat: a ping sent as a request on each pool connection that went quiet, whose reply
 * must come within a timeout, or the connection is aborted and connected again. The ping goes through
 * the request path, as the client's own requests do: its reply is taken as the ping's and never
 * reaches the handler or another request, and a connection that owes replies is not pinged (its
 * requests' timeout watches it: without one, nothing does). A ping is a request, so the client needs
 * framing; a pool used with {@link SocketClient#send} is not pinged (its frames are its handler's).
 *
 * @param idle how long a pool connection may go without traffic before it is pinged, positive
 * @param timeout how long the ping's reply is awaited before the connection is aborted, positive
 * @param ping the ping, a message as {@link SocketClient#request(Object)} takes it (bytes, text, or an
 * object the client's mapper writes), encoded by the client's framing
 */
public record ClientHeartbeat(Duration idle, Duration timeout, Object ping) {

    /** Checks the values; a ping given as a buffer is copied (each ping sends the same bytes). */
    public ClientHeartbeat {
        Objects.requireNonNull(ping, "ping");
        if (ping instanceof ByteBuffer buffer) {
            byte[] bytes = new byte[buffer.remaining()];
            buffer.duplicate().get(bytes);
            ping = bytes;
        }
        if (idle == null || idle.isNegative() || idle.isZero()) {
            throw new IllegalArgumentException("A client heartbeat's idle time must be positive, not " + idle);
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("A client heartbeat's timeout must be positive, not " + timeout);
        }
    }
}
