package dev.sockstate.server.client;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Passes the bytes of each of two connections to the other, as a TCP proxy does (an accepted
 * connection and a client's connection to the backend), with flow control: when one side's bytes
 * leave the other side unwritable (more than its limit of pending write bytes waits), the side
 * they came from stops reading until the other side has sent them all ({@link Connection#pauseReading()},
 * resumed on its {@link ConnectionHandler#onWritable onWritable}); so a slow reader on either side
 * holds at most about one limit of the proxy's memory, whatever the other sends. A FIN is passed on
 * as a FIN, and the close or failure of either side closes the other.
 * <p>
 * {@link #handler()} serves both sides of every relay: a listener's and a client's handler are it
 * (or call its methods); {@link #between} ties two connections together through their attachments.
 * <pre>{@code
 * public void onOpen(Connection front) {
 *     front.pauseReading();
 *     backend.open().whenComplete((back, failure) -> {
 *         if (failure != null) { front.close(); return; }
 *         Relay.between(front, back);
 *         front.resumeReading();
 *     });
 * }
 * }</pre>
 */
public final class Relay {

    private static final ConnectionHandler HANDLER = new RelayHandler();

    private final Connection first;

    private final Connection second;

    /** Whether the first side paused for the second to send what it passed on. */
    private final AtomicBoolean firstPaused = new AtomicBoolean();

    /** Whether the second side paused for the first. */
    private final AtomicBoolean secondPaused = new AtomicBoolean();

    /** Whether the first side's peer sent its FIN. */
    private final AtomicBoolean firstEnded = new AtomicBoolean();

    /** Whether the second side's peer sent its FIN. */
    private final AtomicBoolean secondEnded = new AtomicBoolean();

    private Relay(Connection first, Connection second) {
        this.first = first;
        this.second = second;
    }

    /**
     * Ties two connections together: each one's attachment becomes the relay, through which
     * {@link #handler()} finds the other side. A side that closed already closes the other.
     * @param first one side
     * @param second the other side
     * @return the relay
     */
    public static Relay between(Connection first, Connection second) {
        Relay relay = new Relay(first, second);
        first.attach(relay);
        second.attach(relay);
        if (!first.isOpen() || !second.isOpen()) {
            first.close();
            second.close();
        }
        return relay;
    }

    /** @return the relay a connection is tied to, {@code null} when none */
    public static @Nullable Relay of(Connection connection) {
        return (connection.attachment() instanceof Relay relay) ? relay : null;
    }

    /** @return a handler that relays every connection tied by {@link #between}, and closes one not tied yet when it hangs up */
    public static ConnectionHandler handler() {
        return HANDLER;
    }

    /** @return the other side of the connection given */
    public Connection other(Connection side) {
        return (side == this.first) ? this.second : this.first;
    }

    /**
     * Passes bytes one side read to the other; pauses the side that read them if the other is left unwritable.
     * @param from the side that read them
     * @param data the bytes, consumed
     */
    public void forward(Connection from, ByteBuffer data) {
        Connection to = other(from);
        to.write(data);
        if (!to.isWritable()) {
            // Paused before the flag is up, so that a drain that sees the flag finds the side paused to resume.
            from.pauseReading();
            AtomicBoolean paused = pausedFlag(from);
            paused.set(true);
            // The other side may have sent it all before the flag was up: then nothing resumes this side but this.
            if (to.isWritable() && paused.compareAndSet(true, false)) {
                from.resumeReading();
            }
        }
    }

    /**
     * One side sent all it had to send: the side that paused for it reads again.
     * @param drained the side that became writable
     */
    public void drained(Connection drained) {
        Connection from = other(drained);
        if (pausedFlag(from).compareAndSet(true, false)) {
            from.resumeReading();
        }
    }

    /**
     * @param from the side whose peer sent its FIN: the other side's output ends too, once what it has
     * is sent; once both peers sent theirs, both sides close
     */
    public void hangup(Connection from) {
        Connection to = other(from);
        to.shutdownOutput();
        ((from == this.first) ? this.firstEnded : this.secondEnded).set(true);
        if (((from == this.first) ? this.secondEnded : this.firstEnded).get() || !to.isOpen()) {
            from.close();
            to.close();
        }
    }

    /** @param side a side that closed or failed: the other closes once what it has is sent */
    public void closed(Connection side) {
        other(side).close();
    }

    private AtomicBoolean pausedFlag(Connection side) {
        return (side == this.first) ? this.firstPaused : this.secondPaused;
    }

    /** Relays the connections that {@link #between} tied. */
    private static final class RelayHandler implements ConnectionHandler {

        @Override
        public void onData(Connection connection, ByteBuffer data) {
            Relay relay = of(connection);
            if (relay != null) {
                relay.forward(connection, data);
            }
            else {
                // Not tied yet: the side that opens the relay pauses reading until it is.
                data.position(data.limit());
            }
        }

        @Override
        public void onWritable(Connection connection) {
            Relay relay = of(connection);
            if (relay != null) {
                relay.drained(connection);
            }
        }

        @Override
        public void onHangup(Connection connection) {
            Relay relay = of(connection);
            if (relay != null) {
                relay.hangup(connection);
            }
            else {
                connection.close();
            }
        }

        @Override
        public void onClose(Connection connection) {
            Relay relay = of(connection);
            if (relay != null) {
                relay.closed(connection);
            }
        }
    }
}
