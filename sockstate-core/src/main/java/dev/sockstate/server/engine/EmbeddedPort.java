package dev.sockstate.server.engine;

import dev.sockstate.port.Events;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Operation;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.RegistrationBatch;
import dev.sockstate.port.Trigger;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The notification port of an {@link EmbeddedConnection} and the worker that dequeues from it, both
 * the thread that drives the harness. The connection's turn ({@link SocketTurn}) arms, re-arms and
 * removes its registration here as it would on a real port, through this runner's queue; and
 * {@link #settle()} plays the worker's loop: it applies the queued changes and reports them, hands
 * out posted run requests, the REMOVE notification and the events the {@link EmbeddedSocket} is
 * ready for, until nothing is left. Readiness follows the registration's trigger: a level-triggered
 * registration is notified while the socket is ready, an edge-triggered one when something arrived
 * (or it was re-armed) since its last notification, and a one-shot one is disarmed by its
 * notification. Run requests may be posted from any thread; everything else is the driving thread's.
 */
final class EmbeddedPort implements NotificationPort, Runner {

    /** Notifications one {@link #settle()} hands out at most: more means a connection that never goes quiet. */
    private static final int MOST_NOTIFICATIONS = 1_000_000;

    private final EmbeddedSocket socket;

    private final int readBufferSize;

    /** Run requests posted, from any thread. */
    private final Queue<Long> posted = new ConcurrentLinkedQueue<>();

    /** Registration changes queued by the turn, applied by {@link #settle()}. */
    private final ArrayDeque<Change> queued = new ArrayDeque<>();

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

    private NativeBuffer readBuffer;

    EmbeddedPort(EmbeddedSocket socket, int readBufferSize) {
        this.socket = socket;
        this.readBufferSize = readBufferSize;
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
     * Plays the worker's loop until nothing is left to do: changes applied, run requests, the REMOVE
     * and ready events handed to the turn, one at a time, in that order.
     * @throws IllegalStateException when the connection never goes quiet
     */
    void settle() {
        if (this.settling) {
            return;
        }
        this.settling = true;
        try {
            for (int notifications = 0; notifications < MOST_NOTIFICATIONS; notifications++) {
                applyQueued();
                if (this.posted.poll() != null) {
                    this.turn.notified(this, 0);
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
                    this.turn.notified(this, events);
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

    @Override
    public boolean isWorker() {
        // Not a worker: handler calls run here, never on the listener's executor.
        return false;
    }

    @Override
    public boolean handsOn() {
        return false;
    }

    @Override
    public boolean dequeuesFrom(NotificationPort port) {
        return port == this;
    }

    @Override
    public void queue(SocketTurn socket, Operation operation, int filter) {
        this.queued.addLast(new Change(operation, filter));
    }

    @Override
    public void applyQueued() {
        Change change;
        while ((change = this.queued.pollFirst()) != null) {
            switch (change.operation()) {
                case ENABLE -> {
                    this.filter = change.filter();
                    // Re-arming looks at the socket afresh: what is ready is reported, even edge-triggered.
                    this.edge = true;
                }
                case DISABLE -> this.filter = -1;
                case REMOVE -> {
                    this.filter = -1;
                    this.removeDue = true;
                }
            }
            this.turn.changeApplied(this, change.operation(), null);
        }
    }

    @Override
    public RegistrationBatch singleChange() {
        throw new IllegalStateException("The embedded worker dequeues from the only port, so it queues every change");
    }

    @Override
    public NativeBuffer readBuffer() {
        if (this.readBuffer == null) {
            this.readBuffer = this.socket.allocate(this.readBufferSize);
        }
        return this.readBuffer;
    }

    @Override
    public PeerAddress peer() {
        throw new IllegalStateException("An embedded connection receives no datagram");
    }

    @Override
    public void post(long key, int payload) {
        this.posted.add(key);
    }

    @Override
    public int process(RegistrationBatch changes, NotificationBatch notifications, long timeoutMillis) {
        throw new UnsupportedOperationException("The embedded port is driven by its connection's harness, not dequeued from");
    }

    @Override
    public CompletableFuture<Void> deregister(long socket, long key) {
        throw new UnsupportedOperationException("The embedded port is driven by its connection's harness");
    }

    @Override
    public boolean isOpen() {
        return true;
    }

    @Override
    public String backendName() {
        return "embedded";
    }

    /** Nothing to release: the port holds no native resource. */
    @Override
    public void close() {
    }

    /** A registration change the turn queued. */
    private record Change(Operation operation, int filter) {
    }
}
