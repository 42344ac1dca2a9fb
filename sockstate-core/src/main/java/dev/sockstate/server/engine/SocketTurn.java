package dev.sockstate.server.engine;

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
 * the owner handles them all ({@link #handle}) before it lets go ({@link #release}), then re-arms the
 * registration with {@link #nextFilter()}, or, when a close was asked for and
 * {@link #readyToClose()}, issues REMOVE. Subclasses say what a turn does with the socket: accept
 * (a listener), read and write (a connection), receive (a UDP socket).
 * <p>
 * The owner re-arms a one-shot registration through its worker's next batch call; a notification
 * can only follow once that re-arm is applied, so another worker may then take the socket over even
 * before the first worker hears back. A run request (another thread's write) can start a turn
 * while such a re-arm waits for its call, and that turn's change may reach the port first and be
 * undone by it: once every change in flight is reported, one more turn arms the registration with
 * what the socket waits for then. A persistent registration (the exclusive edge mode) needs no
 * re-arm; its filter change is applied while the owner still holds the socket, so changes made by
 * successive owners reach the port in order. An owner whose turn was long enough
 * {@linkplain #yieldTurn(int) yields}: it keeps what arrived for the next turn, lets go, and posts a
 * run request, so other sockets are served in between.
 */
abstract class SocketTurn extends SocketState {

    private static final System.Logger logger = System.getLogger(SocketTurn.class.getName());

    private final SocketTable table;

    /** The filter last submitted; read and written by the owner only. */
    private int armedFilter = -1;

    /** Events kept for the next turn by an owner that yielded; handed from owner to owner. */
    private int deferredEvents;

    /** Whether the owner yields its turn when it lets go; owner only. */
    private boolean yielding;

    /** Work (reads) done in the current turn; owner only. */
    private int turnWork;

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
     * @param drainsAfterEnable whether each enable is followed by a turn for the filter's events, as an
     * edge-triggered registration needs where the backend raises no edge for readiness that held at the enable
     */
    SocketTurn(NotificationPort port, NativeSockets sockets, SocketTable table, long handle, Trigger trigger,
            ListenerObserver observer, boolean ownedByCreator, boolean drainsAfterEnable) {
        super(port, sockets, handle, trigger, observer, ownedByCreator);
        this.table = table;
        this.drainsAfterEnable = drainsAfterEnable;
    }

    /**
     * Handles events as the owner.
     * @param runner the thread's runner: a worker, or another thread's
     * @param events the events, zero when run for a request
     * @return true to let go now, false when the ownership was handed to another thread, which will
     * call {@link #release(Runner)}
     */
    abstract boolean handle(Runner runner, int events);

    /**
     * @return the filter to arm when letting go, or -1 to leave the socket disarmed (a persistent
     * registration is then disabled)
     */
    abstract int nextFilter();

    /** @return whether a requested close may happen now (queued writes are sent, or it is an abort) */
    boolean readyToClose() {
        return true;
    }

    /** Releases everything once the registration is gone: closes the socket and calls back. */
    void finish() {
        closeSocket();
    }

    /** Closes the socket, which is released even when the close reports an error, and leaves the table. */
    final void closeSocket() {
        try {
            this.sockets.close(this.handle);
        }
        catch (NativeIoException ex) {
            // the descriptor is released all the same
        }
        this.table.remove(this);
    }

    /** @return the error pending on the socket (its {@code SO_ERROR}), or the failure to read it */
    final NativeIoException pendingError() {
        try {
            return this.sockets.takeError(this.handle);
        }
        catch (NativeIoException ex) {
            return ex;
        }
    }

    /** @return the work (reads) counted in this turn so far, this one included; owner only */
    final int countWork() {
        return ++this.turnWork;
    }

    /** @return the work (reads) counted in this turn so far; owner only */
    final int turnWork() {
        return this.turnWork;
    }

    /**
     * A notification, or a posted request (events zero), reached a worker.
     * @param runner the worker
     * @param events the events
     */
    final void notified(Runner runner, int events) {
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
        while (!casWord(current, (current | OWNED) & ~RUN_REQUESTED));
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
    final void yieldTurn(int events) {
        this.yielding = true;
        this.deferredEvents |= events;
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
    final void runtimeFailed(Throwable failure) {
        orWord(CLOSE_REQUESTED | ABORT_REQUESTED);
        logger.log(Level.ERROR, "Handling " + this + " failed; aborting it", failure);
    }

    /**
     * Lets go of the socket as its owner: handles what arrived meanwhile, then closes it if asked,
     * or re-arms it.
     * @param runner the current thread's runner
     */
    final void release(Runner runner) {
        owner(Thread.currentThread());
        // Whether this call armed a one-shot registration while still owning it (see below).
        boolean armedWhileOwned = false;
        // A thread lent no memory changes nothing: a worker of the socket's port takes the turn on.
        boolean handsOn = runner.handsOn();
        if (handsOn) {
            this.yielding = true;
        }
        while (true) {
            int current = word();
            int pending = (current & EVENTS_MASK) >>> EVENTS_SHIFT;
            if (pending != 0 || (current & RUN_REQUESTED) != 0) {
                if (casWord(current, current & ~(EVENTS_MASK | RUN_REQUESTED))) {
                    if (runner.isWorker() && !runner.dequeuesFrom(this.port)) {
                        // A worker of another port (the one that accepted the socket) still owns it and
                        // the arm it applied has fired: the socket belongs to its own port's worker, so the
                        // events go there, through the run request posted on letting go.
                        this.yielding = true;
                    }
                    if (this.yielding) {
                        // The turn is over: the run posted on letting go handles these (and any request).
                        this.deferredEvents |= pending;
                    }
                    else {
                        // A notification that arrived meanwhile used up the arm: arm again when letting go.
                        armedWhileOwned = false;
                        if (!handleSafely(runner, pending)) {
                            return;
                        }
                    }
                }
                continue;
            }
            if (!handsOn && (current & CLOSE_REQUESTED) != 0 && readyToClose()) {
                owner(null);
                if (casWord(current, (current & ~OWNED) | REMOVING)) {
                    this.yielding = false;
                    submit(runner, Operation.REMOVE, 0);
                    return;
                }
                owner(Thread.currentThread());
                continue;
            }
            int filter = nextFilter();
            boolean oneShot = this.trigger.isOneShot();
            if (!handsOn && !oneShot && filter != this.armedFilter && (filter > 0 || this.armedFilter > 0)) {
                if (changeFilterWhileOwned(runner, current, filter) && filter > 0 && !drainAfterEnable(runner, filter)) {
                    return;
                }
                continue;
            }
            // A one-shot registration that fired is disabled in effect; armed while owned, it waits
            // already, unless what the owner did since (a reply that did not fit) changed the filter.
            boolean rearm = !handsOn && oneShot && filter > 0 && (!armedWhileOwned || filter != this.armedFilter);
            // With no events to wait for, it is disabled outright, once: epoll then still reports an
            // error or hang-up (a reset of a half-closed connection); Windows reports nothing.
            boolean disarm = !handsOn && oneShot && filter == 0 && this.armedFilter > 0;
            Operation change = rearm ? Operation.ENABLE : disarm ? Operation.DISABLE : null;
            if (change != null && (disarm || this.drainsAfterEnable || !runner.dequeuesFrom(this.port))) {
                // No batch call of this thread's will carry the change to the socket's port, a re-arm
                // must be in place before the socket is drained, or it is a disable, which no
                // notification follows: it is applied now, before letting go, like a persistent
                // filter change. A notification it raises meanwhile is folded in and handled above.
                if (casWord(current, current + REARM_ONE + recheck(current, filter, this.armedFilter))) {
                    this.armedFilter = filter;
                    armedWhileOwned = true;
                    applyWhileOwned(runner, change, filter);
                    if (rearm && !drainAfterEnable(runner, filter)) {
                        return;
                    }
                }
                continue;
            }
            int armedBefore = this.armedFilter;
            if (change != null) {
                this.armedFilter = filter;
            }
            boolean yielded = this.yielding;
            this.yielding = false;
            owner(null);
            if (casWord(current, (current & ~OWNED) + ((change != null) ? REARM_ONE + recheck(current, filter, armedBefore) : 0))) {
                if (change != null) {
                    submit(runner, change, filter);
                }
                if (yielded && !postRun()) {
                    // The port closed with the server's stop: no worker takes the turn on, and no
                    // registration is left to remove, so the socket is finished here.
                    removed();
                }
                return;
            }
            this.yielding = yielded;
            this.armedFilter = armedBefore;
            owner(Thread.currentThread());
        }
    }

    /**
     * A one-shot change submitted while an earlier one is still in flight (queued by a worker that
     * went on with its batch before its next call) may reach the port first and be undone by it: the
     * turn that follows once every change is reported arms the registration again.
     * @param current the word
     * @param filter the change's filter
     * @param lastSubmitted the filter of the change submitted before it
     * @return the bit that asks for that turn, to add to the word, or 0 when nothing is in flight
     */
    private static int recheck(int current, int filter, int lastSubmitted) {
        // (A change like the last one submitted cannot be undone by an older one unless that one
        // differed too, and then it asked already: the bit stays until nothing is in flight.)
        boolean differs = filter != lastSubmitted;
        return ((current >>> REARM_SHIFT) != 0 && differs && (current & RECHECK_REQUESTED) == 0) ? RECHECK_REQUESTED : 0;
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

    /**
     * Applies a persistent registration's new filter before letting go, so that the next owner's
     * change cannot overtake it on the port.
     * @return whether it was applied (false when the word changed meanwhile: the caller looks again)
     */
    private boolean changeFilterWhileOwned(Runner runner, int current, int filter) {
        if (!casWord(current, current + REARM_ONE)) {
            return false;
        }
        this.armedFilter = filter;
        // No filter (-1), or an empty one, disables the registration: nothing is reported, not even a
        // hang-up. An enable with no events has no documented meaning on Windows.
        applyWhileOwned(runner, (filter <= 0) ? Operation.DISABLE : Operation.ENABLE, filter);
        return true;
    }

    /**
     * Applies a change now, before letting go: through the runner's own batch call if it dequeues
     * from this socket's port (after the changes it queued before, which may be this socket's), else
     * in a call of its own.
     */
    private void applyWhileOwned(Runner runner, Operation operation, int filter) {
        if (runner.dequeuesFrom(this.port)) {
            runner.queue(this, operation, filter);
            runner.applyQueued();
        }
        else {
            applyNow(runner, operation, filter);
        }
    }

    /** Queues the change in the runner's next batch call if it dequeues from this socket's port, else applies it at once. */
    private void submit(Runner runner, Operation operation, int filter) {
        if (runner.dequeuesFrom(this.port)) {
            runner.queue(this, operation, filter);
        }
        else {
            applyNow(runner, operation, filter);
        }
    }

    /**
     * Adds a change of this socket's registration to a batch.
     * @param batch the batch
     * @param operation the change
     * @param filter the events, for ENABLE
     * @return the index of the entry
     */
    final int addChange(RegistrationBatch batch, Operation operation, int filter) {
        return switch (operation) {
            case ENABLE -> batch.enable(this.handle, this.key, filter, this.trigger);
            case REMOVE -> batch.remove(this.handle, this.key);
            default -> batch.disable(this.handle, this.key);
        };
    }

    /**
     * Applies one change at once, on this socket's port: from a thread that is not one of the
     * workers, or from a worker of another port.
     */
    private void applyNow(Runner runner, Operation operation, int filter) {
        RegistrationBatch change = runner.singleChange();
        change.clear();
        addChange(change, operation, filter);
        NativeIoException failure;
        try {
            this.port.apply(change);
            failure = change.failed(0) ? change.failure(0, "ProcessSocketNotifications") : null;
            change.clear();
        }
        catch (NativeIoException ex) {
            failure = ex;
        }
        catch (PortClosedException ex) {
            failure = new NativeIoException("ProcessSocketNotifications", NativeError.BAD_DESCRIPTOR, 0, ex.getMessage());
        }
        changeApplied(runner, operation, failure);
    }

    /**
     * A change submitted for this socket's registration was applied (or refused).
     * @param runner the thread that applied it
     * @param operation the change
     * @param failure why it was refused, or {@code null}
     */
    final void changeApplied(Runner runner, Operation operation, NativeIoException failure) {
        this.observer.registrationChanged(operation, failure == null);
        if (operation == Operation.ENABLE || operation == Operation.DISABLE) {
            // The last change reported takes the recheck asked for with it, in the same update, so that
            // a change submitted meanwhile sees whether one is still due.
            int before;
            int current;
            do {
                before = word();
                current = before - REARM_ONE;
                if ((current >>> REARM_SHIFT) == 0) {
                    current &= ~RECHECK_REQUESTED;
                }
            }
            while (!casWord(before, current));
            if (failure != null && (current & REMOVING) == 0) {
                logger.log(Level.WARNING, "The port refused to re-arm " + this + "; closing it", failure);
                orWord(CLOSE_REQUESTED | ABORT_REQUESTED);
                notified(runner, 0);
            }
            else if ((before & RECHECK_REQUESTED) != 0 && (current & RECHECK_REQUESTED) == 0) {
                // Every change in flight is in place now, an older one maybe last: a turn arms the
                // registration again with what the socket waits for now (the owner's own goes round again).
                requestTurn();
            }
            finishIfDone();
        }
        else if (operation == Operation.REMOVE && failure != null) {
            // Nothing is registered (the socket was never armed, or is gone): no REMOVE will come.
            removed();
        }
    }

}
