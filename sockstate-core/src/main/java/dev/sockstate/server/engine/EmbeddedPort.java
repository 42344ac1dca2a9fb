package dev.sockstate.server.engine;

import dev.sockstate.port.AbstractNotificationPort;
import dev.sockstate.port.Events;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.RegistrationBatch;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.engine.turn.OffWorker;
import dev.sockstate.server.engine.turn.Runner;
import dev.sockstate.server.engine.turn.SocketTurn;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The notification port of an {@link EmbeddedConnection}, driven by the thread that drives the
 * harness. The connection's turn ({@link SocketTurn}) arms, re-arms and removes its registration here
 * through the port's own {@link #process} call, as it does on a real port where changes are applied
 * at once (its runner, {@link #runner()}, dequeues from no port); and {@link #settle()} plays the
 * worker's loop: it hands out posted run requests, the REMOVE notification and the events the
 * {@link EmbeddedSocket} is ready for, until nothing is left. Readiness follows the registration's
 * trigger: a level-triggered registration is notified while the socket is ready, an edge-triggered one
 * when something arrived (or it was re-armed) since its last notification, and a one-shot one is
 * disarmed by its notification. Run requests may be posted from any thread; everything else is the
 * driving thread's.
 */
final class EmbeddedPort extends AbstractNotificationPort {

    /** Notifications one {@link #settle()} hands out at most: more means a connection that never goes quiet. */
    private static final int MOST_NOTIFICATIONS = 1_000_000;

    private final EmbeddedSocket socket;

    /** The driving thread's runner: memory of its own, every change applied at once. */
    private final OffWorker runner;

    /** Run requests posted, from any thread. */
    private final Queue<Long> posted = new ConcurrentLinkedQueue<>();

    private SocketTurn turn;

    private Trigger trigger;

    /** The events the registration asks for; -1 while disarmed (by a one-shot notification, a DISABLE or REMOVE). */
    private int filter = -1;

    /** Edge-triggered: whether the socket's state changed (or it was re-armed) since the last notification. */
    private boolean edge;

    /** Whether the REMOVE notification is due. */
    private boolean removeDue;

    /** Whether {@link #settle()} runs: a call from inside it (a handler driving the harness) leaves the work to it. */
    private boolean settling;

    EmbeddedPort(EmbeddedSocket socket, int readBufferSize) {
        this.socket = socket;
        this.runner = new OffWorker(socket, readBufferSize);
    }

    /** @return the runner of the thread that drives the harness */
    Runner runner() {
        return this.runner;
    }

    /** @param turn the one socket registered here, with its trigger */
    void register(SocketTurn turn) {
        this.turn = turn;
        this.trigger = turn.trigger;
    }

    /** The socket's state changed (bytes or a FIN arrived, an error is pending): an edge for an edge-triggered registration. */
    void socketChanged() {
        this.edge = true;
    }

    /**
     * Plays the worker's loop until nothing is left to do: run requests, the REMOVE and ready events
     * handed to the turn, one at a time, in that order.
     * @throws IllegalStateException when the connection never goes quiet
     */
    void settle() {
        if (this.settling) {
            return;
        }
        this.settling = true;
        try {
            for (int notifications = 0; notifications < MOST_NOTIFICATIONS; notifications++) {
                if (this.posted.poll() != null) {
                    this.turn.notified(this.runner, 0);
                }
                else if (this.removeDue) {
                    this.removeDue = false;
                    this.turn.removed();
                }
                else {
                    int events = readyEvents();
                    if (events == 0) {
                        return;
                    }
                    this.edge = false;
                    if (this.trigger.isOneShot()) {
                        this.filter = -1;
                    }
                    this.turn.notified(this.runner, events);
                }
            }
            throw new IllegalStateException("The embedded connection did not go quiet after " + MOST_NOTIFICATIONS
                    + " notifications: a handler or stage that asks for a turn at every turn?");
        }
        finally {
            this.settling = false;
        }
    }

    /** @return the events to notify now, zero when none */
    private int readyEvents() {
        if (this.filter < 0 || (this.trigger.isEdge() && !this.edge)) {
            return 0;
        }
        int ready = 0;
        if (this.socket.errorPending()) {
            ready |= Events.ERR;
        }
        if (!this.socket.closed()) {
            ready |= this.socket.readable() ? Events.IN : 0;
            ready |= this.socket.peerShut() ? Events.HANGUP : 0;
            // The socket takes every send at once: it is always writable.
            ready |= this.socket.outputShut() ? 0 : Events.OUT;
        }
        // An error is reported whatever the filter asks for.
        return ready & (this.filter | Events.ERR);
    }

    /** Applies the changes to the one registration; dequeuing is {@link #settle()}'s. */
    @Override
    protected int doProcess(RegistrationBatch changes, NotificationBatch notifications, long timeoutMillis) {
        if (notifications != null) {
            throw new IllegalStateException("The embedded port is driven by its connection's harness, not dequeued from");
        }
        for (int i = 0; changes != null && i < changes.size(); i++) {
            switch (changes.operation(i)) {
                case ENABLE -> {
                    this.filter = changes.filter(i);
                    // Re-arming looks at the socket afresh: what is ready is reported, even edge-triggered.
                    this.edge = true;
                }
                case DISABLE -> this.filter = -1;
                default -> {
                    this.filter = -1;
                    this.removeDue = true;
                }
            }
            storeResult(changes, i, null, 0);
        }
        return 0;
    }

    @Override
    protected void doPost(long key, int payload) {
        this.posted.add(key);
    }

    /** Nothing waits in the port: the harness's thread drives it. */
    @Override
    protected void wakeAllForClose() {
    }

    /** Nothing to release: the port holds no native resource. */
    @Override
    protected void release() {
    }

    @Override
    public String backendName() {
        return "embedded";
    }
}
