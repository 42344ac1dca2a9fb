package dev.sockstate.server.engine.turn;

import dev.sockstate.port.Events;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Operation;
import dev.sockstate.port.PortClosedException;
import dev.sockstate.port.RegistrationBatch;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.observer.ListenerObserver;
import java.lang.System.Logger.Level;

/**
 * A socket the server serves and its turns, the one place where a socket is owned, handled, re-armed
 * and closed: a notification (or a run request) that finds the socket idle claims it through its
 * {@linkplain SocketState state word}, one that finds it owned folds its events in and returns, and
 * the owner handles them all ({@link #handle}) before it lets go ({@link #release}), then arms the
 * registration with {@link #nextFilter()}, or, when a close was asked for and
 * {@link #readyToClose()}, removes it.
 * <p>
 * <b>Registration changes.</b> What the socket wants is state (its filter, or {@link #REMOVING}),
 * and a change applies what is wanted when it is applied. Where deferring saves no system call
 * (epoll), the owner applies its change before it lets go, so successive owners' changes reach the
 * port in order. Where one call applies changes and dequeues (Windows), the owner of a one-shot
 * registration lets go and its worker <em>carries</em> the re-arm in its next call, which reads what
 * the socket wants as it builds the call ({@link QueuedChanges}); a change made meanwhile elsewhere is applied at once and
 * marks the socket {@link #RESTATED}, so that the carrier applies it once more, as it is then. Calls
 * that carry changes do not wait, so a carrier reports at once. A REMOVE goes into the owner's own
 * worker's next call, or is applied at once by any other thread; nothing is applied after it.
 * <p>
 * <b>Bounded turns.</b> Every read and every round of requests handled counts as work; past
 * {@link #TURN_BUDGET} the owner yields: it keeps what arrived for the next turn, lets go and posts a
 * run request, so that the other sockets of its port are served in between. Subclasses say what a
 * turn does with the socket: accept (a listener), read and write (a connection), receive (UDP).
 */
public abstract class SocketTurn extends SocketState {

    private static final System.Logger logger = System.getLogger(SocketTurn.class.getName());

    /** Work (reads, rounds of requests) in one turn before other sockets get theirs. */
    public static final int TURN_BUDGET = 16;

    private final SocketTable table;

    /**
     * What the socket wants from its port: the filter last applied or handed to a carrier, -1 for none
     * (never armed, or disabled), unless {@link #REMOVING}. The owner writes it before the update of
     * the word that lets go; a carrier reads it after reading the word. A one-shot registration that
     * fired is disarmed whatever this says.
     */
    private int armedFilter = -1;

    /** Events kept for the next turn by an owner that yielded; handed from owner to owner. */
    private int deferredEvents;

    /** Whether the owner yields its turn when it lets go; owner only. */
    private boolean yielding;

    /** Whether events that arrive while the owner lets go start a turn of their own; owner only, for one letting go. */
    private boolean eventsToNextTurn;

    /** Work done in the current turn; owner only. */
    private int turnWork;

    /** Whether changes of a one-shot registration ride the owner's worker's next dequeue call. */
    private final boolean carriesChanges;

    /**
     * Whether each enable of the registration is followed, once applied, by a turn for the filter's
     * events (read until would-block, flush): an edge-triggered registration on a backend that raises
     * an edge only for a change after the enable.
     */
    private final boolean drainsAfterEnable;

    /**
     * @param port the port the socket is registered with
     * @param sockets the backend's sockets
     * @param table the server's sockets by completion key, which this one leaves when finished
     * @param handle the socket
     * @param trigger how it is registered
     * @param observer its listener's observer
     * @param ownedByCreator whether the creating thread owns it from the start (and arms it by letting go)
     * @param rules how the backend takes registration changes
     */
    protected SocketTurn(NotificationPort port, NativeSockets sockets, SocketTable table, long handle, Trigger trigger,
            ListenerObserver observer, boolean ownedByCreator, ChangeRules rules) {
        super(port, sockets, handle, trigger, observer, ownedByCreator);
        this.table = table;
        this.carriesChanges = rules.withDequeue() && trigger.isOneShot();
        this.drainsAfterEnable = trigger.isEdge() && !rules.edgeOnEveryArrival();
    }

    /**
     * @param home where the socket is served
     * @param handle the socket
     * @param trigger how it is registered
     * @param ownedByCreator whether the creating thread owns it from the start (and arms it by letting go)
     */
    protected SocketTurn(SocketHome home, long handle, Trigger trigger, boolean ownedByCreator) {
        this(home.port(), home.sockets(), home.table(), handle, trigger, home.observer(), ownedByCreator, home.rules());
    }

    /**
     * Handles events as the owner.
     * @param runner the thread's runner: a worker, or another thread's
     * @param events the events, zero when run for a request
     * @return true to let go now, false when the ownership was handed to another thread, which will
     * call {@link #release(Runner)}
     */
    protected abstract boolean handle(Runner runner, int events);

    /**
     * @return the filter to arm when letting go, or -1 to leave the socket disarmed (a persistent
     * registration is then disabled)
     */
    protected abstract int nextFilter();

    /** @return whether a requested close may happen now (queued writes are sent, or it is an abort) */
    protected boolean readyToClose() {
        return true;
    }

    /**
     * The port refused to change the registration, in the owner's turn: the socket is closed, and a
     * connection's handler hears of it (the engine's TCP connection). Logged here once.
     * @param failure the port's refusal
     */
    protected void changeRefused(NativeIoException failure) {
        logRefusal(failure);
        requestClose(true);
    }

    /** @param failure the port's refusal of a registration change, logged once, with the socket it closes */
    public final void logRefusal(NativeIoException failure) {
        logger.log(Level.WARNING, "The port refused to change the registration of " + this + "; closing it", failure);
    }

    /** Releases everything once the registration is gone: closes the socket and calls back. */
    @Override
    protected void finish() {
        closeSocket();
    }

    /** Closes the socket, which is released even when the close reports an error, and leaves the table. */
    public final void closeSocket() {
        try {
            this.sockets.close(this.handle);
        }
        catch (NativeIoException ex) {
            // the descriptor is released all the same
        }
        this.table.remove(this);
    }

    /** @return the error pending on the socket (its {@code SO_ERROR}), or the failure to read it */
    public final NativeIoException pendingError() {
        try {
            return this.sockets.takeError(this.handle);
        }
        catch (NativeIoException ex) {
            return ex;
        }
    }

    /** @return the work counted in this turn so far, this one included; owner only */
    public final int countWork() {
        return ++this.turnWork;
    }

    /** @return the work counted in this turn so far; owner only */
    public final int turnWork() {
        return this.turnWork;
    }

    /**
     * A notification, or a posted request (events zero), reached a worker.
     * @param runner the worker
     * @param events the events
     */
    public final void notified(Runner runner, int events) {
        // A turn on a worker of the socket's port marks it homed, once (HOMED).
        int homed = runner.dequeuesFrom(this.port) ? HOMED : 0;
        int current;
        do {
            current = word();
            if ((current & (REMOVING | FINISHED)) != 0) {
                return;
            }
            if ((current & OWNED) != 0) {
                int folded = current | (events << EVENTS_SHIFT) | ((events == 0) ? RUN_REQUESTED : 0);
                if (casWord(current, folded)) {
                    return;
                }
                continue;
            }
        }
        // Claiming starts a turn that handles every request made so far: a run posted for them is spent.
        while (!casWord(current, (current | OWNED | homed) & ~RUN_REQUESTED));
        owner(Thread.currentThread());
        this.turnWork = 0;
        int deferred = this.deferredEvents;
        this.deferredEvents = 0;
        if (handleSafely(runner, events | deferred)) {
            release(runner);
        }
    }

    /**
     * Ends the owner's turn early, from {@link #handle}: events folded in meanwhile, and the given
     * ones, are kept for the next turn, which a run request posted once the owner let go starts.
     * @param events events to handle next turn (IN to read on, for example)
     */
    public final void yieldTurn(int events) {
        this.yielding = true;
        this.deferredEvents |= events;
    }

    /**
     * Has the events that arrive while the owner lets go (the enable it applies may raise some at
     * once) handled in a turn of their own, posted, instead of in this one: for the first letting go
     * of a connection, which the acceptor's turn does for each connection it accepts.
     */
    public final void eventsToNextTurn() {
        this.eventsToNextTurn = true;
    }

    /** Handles events; a failure of the runtime itself (not of a handler) aborts this socket only. */
    private boolean handleSafely(Runner runner, int events) {
        try {
            return handle(runner, events);
        }
        catch (RuntimeException | LinkageError ex) {
            runtimeFailed(ex);
            return true;
        }
    }

    /** A failure of the runtime itself (not of a handler) during this socket's turn: the socket is aborted. */
    public final void runtimeFailed(Throwable failure) {
        orWord(CLOSE_REQUESTED | ABORT_REQUESTED);
        logger.log(Level.ERROR, "Handling " + this + " failed; aborting it", failure);
    }

    /**
     * Lets go of the socket as its owner: handles what arrived meanwhile (within the turn's budget),
     * then removes the registration if a close is due, or leaves it as {@link #nextFilter()} wants.
     * @param runner the current thread's runner
     */
    public final void release(Runner runner) {
        owner(Thread.currentThread());
        // Whether the registration was applied while owned since events last came in: a one-shot
        // arm then waits already, unless what the owner did since changed the filter.
        boolean appliedSinceEvents = false;
        // A thread lent no memory changes nothing: a worker of the socket's port takes the turn on.
        boolean handsOn = runner.handsOn();
        if (handsOn) {
            this.yielding = true;
        }
        while (true) {
            int current = word();
            int pending = (current & EVENTS_MASK) >>> EVENTS_SHIFT;
            boolean refused = (current & REFUSED) != 0 && !this.yielding;
            if (pending != 0 || (current & RUN_REQUESTED) != 0 || refused) {
                if (!casWord(current, current & ~(EVENTS_MASK | RUN_REQUESTED | (refused ? REFUSED : 0)))) {
                    continue;
                }
                if (pending != 0) {
                    appliedSinceEvents = false;
                    if (this.eventsToNextTurn) {
                        this.yielding = true;
                    }
                }
                NativeIoException refusal = refused ? takeRefusal() : null;
                if (refusal != null) {
                    // (Null when the turn already took it: its handler heard of it.)
                    changeRefused(refusal);
                }
                if (runner.isWorker() && !runner.dequeuesFrom(this.port)) {
                    // A worker of another port (the one that accepted the socket) still owns it: the
                    // socket belongs to its own port's worker, which the run posted on letting go reaches.
                    this.yielding = true;
                }
                else if (countWork() > TURN_BUDGET) {
                    this.yielding = true;
                }
                if (this.yielding) {
                    this.deferredEvents |= pending;
                }
                else if (!handleSafely(runner, pending)) {
                    return;
                }
                continue;
            }
            if (!handsOn && (current & CLOSE_REQUESTED) != 0 && readyToClose()) {
                if (remove(runner, current)) {
                    return;
                }
                continue;
            }
            int filter = nextFilter();
            // A yielding owner changes nothing: the turn its run starts handles what it kept, then arms.
            Operation change = this.yielding ? null : changeFor(filter, appliedSinceEvents);
            if (change == null) {
                if (letGo(current, 0)) {
                    return;
                }
                continue;
            }
            if (this.carriesChanges && change == Operation.ENABLE && !this.drainsAfterEnable && runner.dequeuesFrom(this.port)
                    && (current & CARRIED) == 0) {
                // The worker's next call applies it (with its dequeue), as it is wanted then.
                int before = this.armedFilter;
                this.armedFilter = filter;
                if (letGo(current, CARRIED)) {
                    runner.carry(this);
                    return;
                }
                this.armedFilter = before;
                continue;
            }
            // Applied now, while owned (a call that carries it already applies it again, as it is then):
            // a notification it raises meanwhile is folded in and handled above.
            this.armedFilter = filter;
            appliedSinceEvents = true;
            if ((current & CARRIED) != 0) {
                // A worker's call still carries it: that worker applies the state once more, as it is then.
                orWord(RESTATED);
            }
            NativeIoException failure = applyNow(runner, change, filter);
            if (failure != null) {
                this.armedFilter = -1;
                changeRefused(failure);
            }
            else if (change == Operation.ENABLE && !drainAfterEnable(runner, filter)) {
                return;
            }
        }
    }

    /**
     * @return the change that leaves the registration as {@code filter} wants, {@code null} for none
     * @param filter the events to wait for, -1 or 0 for none
     * @param appliedSinceEvents whether the registration was applied in this turn since events last came in
     */
    private Operation changeFor(int filter, boolean appliedSinceEvents) {
        if (this.trigger.isOneShot()) {
            // A one-shot registration that fired is disabled in effect: it is armed again unless armed
            // already in this turn with the same filter. With nothing to wait for it is disabled
            // outright, once: epoll then still reports an error or a hang-up; Windows reports nothing.
            if (filter > 0) {
                return (appliedSinceEvents && filter == this.armedFilter) ? null : Operation.ENABLE;
            }
            return (this.armedFilter > 0) ? Operation.DISABLE : null;
        }
        if (filter == this.armedFilter || (filter <= 0 && this.armedFilter <= 0)) {
            return null;
        }
        // No filter, or an empty one, disables: nothing is reported, not even a hang-up. An enable
        // with no events has no documented meaning on Windows.
        return (filter > 0) ? Operation.ENABLE : Operation.DISABLE;
    }

    /**
     * Lets go of the socket, posting a run if the owner yields.
     * @param current the word as last read
     * @param bits to set as it lets go ({@link #CARRIED} or {@link #RESTATED}, or none)
     * @return false when the word changed meanwhile: the caller looks again, still the owner
     */
    private boolean letGo(int current, int bits) {
        boolean yielded = this.yielding;
        this.yielding = false;
        owner(null);
        // A yielding owner leaves a run request in the word: later requests post no run of their own.
        if (!casWord(current, (current & ~OWNED) | bits | (yielded ? RUN_REQUESTED : 0))) {
            this.yielding = yielded;
            owner(Thread.currentThread());
            return false;
        }
        this.eventsToNextTurn = false;
        if (yielded && !postRun()) {
            // The port closed with the server's stop: no worker takes the turn on, and no
            // registration is left to remove, so the socket is finished here.
            removed();
        }
        return true;
    }

    /**
     * Lets go to close: the registration is removed by the owner's worker's next call, by a worker
     * that carries it already, or at once; its REMOVE notification finishes the socket.
     * @return false when the word changed meanwhile: the caller looks again, still the owner
     */
    private boolean remove(Runner runner, int current) {
        boolean carried = (current & CARRIED) != 0;
        boolean toCarry = !carried && runner.dequeuesFrom(this.port);
        owner(null);
        if (!casWord(current, (current & ~OWNED) | REMOVING | (carried ? RESTATED : toCarry ? CARRIED : 0))) {
            owner(Thread.currentThread());
            return false;
        }
        this.yielding = false;
        this.eventsToNextTurn = false;
        if (toCarry) {
            runner.carry(this);
        }
        else if (!carried) {
            // Nobody but this thread changes the registration once REMOVING is set.
            NativeIoException failure = applyNow(runner, Operation.REMOVE, 0);
            this.observer.registrationChanged(Operation.REMOVE, failure == null);
            if (failure != null) {
                // Nothing is registered (the socket was never armed): no REMOVE will come.
                removed();
            }
        }
        return true;
    }

    /**
     * After an enable that is applied, for a backend whose edges only follow a change after the enable:
     * handles the filter's events as if notified, so that what arrived before (data, room to write)
     * is not left waiting for an edge that will not come.
     * @return false when the ownership was handed to another thread
     */
    private boolean drainAfterEnable(Runner runner, int filter) {
        if (!this.drainsAfterEnable || isAborting()) {
            // (A close asked for still drains: its queued reply may be waiting for the room the enable watches.)
            return true;
        }
        return handleSafely(runner, filter & (Events.IN | Events.OUT));
    }

    /** @return the filter the socket wants, -1 for none (what a carrier applies unless {@link #REMOVING}) */
    final int armedFilter() {
        return this.armedFilter;
    }

    /** Applies one change at once on this socket's port, with the runner's batch of one. */
    private NativeIoException applyNow(Runner runner, Operation operation, int filter) {
        RegistrationBatch change = runner.singleChange();
        change.clear();
        switch (operation) {
            case ENABLE -> change.enable(this.handle, this.key, filter, this.trigger);
            case REMOVE -> change.remove(this.handle, this.key);
            default -> change.disable(this.handle, this.key);
        }
        NativeIoException failure;
        try {
            this.port.apply(change);
            failure = change.failed(0) ? change.failure(0, "ProcessSocketNotifications") : null;
        }
        catch (NativeIoException ex) {
            failure = ex;
        }
        catch (PortClosedException ex) {
            failure = new NativeIoException("ProcessSocketNotifications", NativeError.BAD_DESCRIPTOR, 0, ex.getMessage());
        }
        change.clear();
        if (operation != Operation.REMOVE) {
            this.observer.registrationChanged(operation, failure == null);
        }
        return failure;
    }
}
