package dev.sockstate.server.engine;

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
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A socket the server serves, registered with one of its worker group's ports: whose turn it is,
 * what it is armed for, and how far its close got. Keeps the socket handled by one thread at a time.
 * <p>
 * A state word holds: {@link #OWNED} while a thread handles the socket; events and requests that
 * arrived meanwhile, which the owner handles before it lets go; the number of re-arms submitted but
 * not yet known to be applied; and the closing stages. The owner re-arms a one-shot registration
 * through its worker's next batch call; a notification can only follow once that re-arm is applied,
 * so another worker may then take the socket over even before the first worker hears back.
 * Only the owner issues REMOVE, and the socket is closed only once the REMOVE notification arrived
 * <em>and</em> no re-arm is in flight, so a descriptor is never reused while a change naming it is
 * still queued, and per-socket state is released only after its REMOVE.
 * <p>
 * The same word makes a persistent registration safe on many workers (the exclusive edge mode):
 * a notification that finds the socket idle claims it; one that finds it owned folds its events
 * in and returns, and the owner runs again with them before it lets go (its release fails while
 * events are folded in). A persistent registration's filter change is applied while the owner still
 * holds the socket, so changes made by successive owners reach the port in order. An owner whose
 * turn was long enough {@linkplain #yieldTurn(int) yields}: it keeps what arrived for the next turn,
 * lets go, and posts a run request, so other sockets are served in between.
 */
abstract class SocketState {

    private static final System.Logger logger = System.getLogger(SocketState.class.getName());

    /** Payload of a posted message that asks a worker to run a socket's requests. */
    static final int RUN = 1;

    static final int OWNED = 1;

    static final int CLOSE_REQUESTED = 1 << 1;

    static final int ABORT_REQUESTED = 1 << 2;

    static final int RUN_REQUESTED = 1 << 3;

    static final int REMOVING = 1 << 4;

    static final int REMOVED = 1 << 5;

    static final int FINISHED = 1 << 6;

    static final int DRAIN_REQUESTED = 1 << 7;

    private static final int EVENTS_SHIFT = 8;

    private static final int EVENTS_MASK = 0xff << EVENTS_SHIFT;

    private static final int REARM_ONE = 1 << 16;

    private static final VarHandle STATE;

    private static final VarHandle OWNER;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(SocketState.class, "state", int.class);
            OWNER = MethodHandles.lookup().findVarHandle(SocketState.class, "owner", Thread.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** The port this socket is registered with, one of its group's, for the socket's life. */
    final NotificationPort port;

    final NativeSockets sockets;

    private final SocketTable table;

    final long handle;

    /** How the socket is registered. */
    final Trigger trigger;

    /** The observer of the socket's listener. */
    final ListenerObserver observer;

    /** The completion key, set once when the socket enters the table. */
    long key;

    @SuppressWarnings("unused")
    private volatile int state;

    /**
     * The thread that owns the socket, or {@code null}. Only ever compared with the reading thread
     * itself, which always sees its own last write, so plain (opaque) accesses suffice: a thread
     * finds itself here exactly while it owns the socket, without a fence on every turn.
     */
    private Thread owner;

    /** The filter last submitted; read and written by the owner only. */
    private int armedFilter = -1;

    /** Events kept for the next turn by an owner that yielded; handed from owner to owner. */
    private int deferredEvents;

    /** Whether the owner yields its turn when it lets go; owner only. */
    private boolean yielding;

    /** Work (reads) done in the current turn; owner only. */
    private int turnWork;

    /**
     * @param port the port the socket is registered with
     * @param sockets the backend's sockets
     * @param table the server's sockets by completion key, which this one leaves when finished
     * @param handle the socket
     * @param trigger how it is registered
     * @param observer its listener's observer
     * @param ownedByCreator whether the creating thread owns it from the start (and arms it by letting go)
     */
    SocketState(NotificationPort port, NativeSockets sockets, SocketTable table, long handle, Trigger trigger,
            ListenerObserver observer, boolean ownedByCreator) {
        this.port = port;
        this.sockets = sockets;
        this.table = table;
        this.handle = handle;
        this.trigger = trigger;
        this.observer = observer;
        if (ownedByCreator) {
            this.state = OWNED;
            OWNER.setOpaque(this, Thread.currentThread());
        }
    }

    /**
     * Handles events as the owner.
     * @param runner the thread's runner: a worker, or another thread's
     * @param events the events, zero when run for a request
     * @return true to let go now, false when the ownership was handed to another thread, which will
     * call {@link #release(Runner)}
     */
    abstract boolean handle(Runner runner, int events);

    /** @return the filter to arm when letting go, or -1 to leave the socket disarmed */
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
            current = this.state;
            if ((current & (REMOVING | FINISHED)) != 0) {
                return;
            }
            if ((current & OWNED) != 0) {
                int folded = current | (events << EVENTS_SHIFT) | ((events == 0) ? RUN_REQUESTED : 0);
                if (STATE.compareAndSet(this, current, folded)) {
                    return;
                }
                continue;
            }
        }
        while (!STATE.compareAndSet(this, current, current | OWNED));
        OWNER.setOpaque(this, Thread.currentThread());
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
            STATE.getAndBitwiseOr(this, CLOSE_REQUESTED | ABORT_REQUESTED);
            logger.log(Level.ERROR, "Handling " + this + " failed; aborting it", ex);
            return true;
        }
    }

    /**
     * Lets go of the socket as its owner: handles what arrived meanwhile, then closes it if asked,
     * or re-arms it.
     * @param runner the current thread's runner
     */
    final void release(Runner runner) {
        OWNER.setOpaque(this, Thread.currentThread());
        // Whether this call armed a one-shot registration while still owning it (see below).
        boolean armedWhileOwned = false;
        while (true) {
            int current = this.state;
            int pending = (current & EVENTS_MASK) >>> EVENTS_SHIFT;
            if (pending != 0 || (current & RUN_REQUESTED) != 0) {
                if (STATE.compareAndSet(this, current, current & ~(EVENTS_MASK | RUN_REQUESTED))) {
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
            if ((current & CLOSE_REQUESTED) != 0 && readyToClose()) {
                OWNER.setOpaque(this, null);
                if (STATE.compareAndSet(this, current, (current & ~OWNED) | REMOVING)) {
                    this.yielding = false;
                    submit(runner, Operation.REMOVE, 0);
                    return;
                }
                OWNER.setOpaque(this, Thread.currentThread());
                continue;
            }
            int filter = nextFilter();
            boolean oneShot = this.trigger.isOneShot();
            if (!oneShot && filter >= 0 && filter != this.armedFilter) {
                changeFilterWhileOwned(runner, current, filter);
                continue;
            }
            boolean rearm = oneShot && filter >= 0 && !armedWhileOwned;
            if (rearm && !runner.dequeuesFrom(this.port)) {
                // No batch call of this thread's will carry the re-arm to the socket's port, so it is
                // applied now, before letting go, like a persistent filter change: a later owner's
                // re-arm cannot then be overtaken by this one. A notification it raises meanwhile is
                // folded in and handled above.
                if (STATE.compareAndSet(this, current, current + REARM_ONE)) {
                    this.armedFilter = filter;
                    armedWhileOwned = true;
                    applyNow(runner, Operation.ENABLE, filter);
                }
                continue;
            }
            if (rearm) {
                this.armedFilter = filter;
            }
            boolean yielded = this.yielding;
            this.yielding = false;
            OWNER.setOpaque(this, null);
            if (STATE.compareAndSet(this, current, (current & ~OWNED) + (rearm ? REARM_ONE : 0))) {
                if (rearm) {
                    submit(runner, Operation.ENABLE, filter);
                }
                if (yielded) {
                    postRun();
                }
                return;
            }
            this.yielding = yielded;
            OWNER.setOpaque(this, Thread.currentThread());
        }
    }

    /**
     * Applies a persistent registration's new filter before letting go, so that the next owner's
     * change cannot overtake it on the port.
     */
    private void changeFilterWhileOwned(Runner runner, int current, int filter) {
        if (!STATE.compareAndSet(this, current, current + REARM_ONE)) {
            return;
        }
        this.armedFilter = filter;
        if (runner.dequeuesFrom(this.port)) {
            runner.queue(this, Operation.ENABLE, filter);
            runner.applyQueued();
        }
        else {
            applyNow(runner, Operation.ENABLE, filter);
        }
    }

    /**
     * Hands the ownership to another thread (a handler executor's): from now on the calling thread no
     * longer finds itself the owner; the thread taking over calls {@link #takeOver()}.
     */
    final void handOver() {
        OWNER.setOpaque(this, null);
    }

    /** Takes over the ownership handed over by {@link #handOver()}, on the thread that continues the turn. */
    final void takeOver() {
        OWNER.setOpaque(this, Thread.currentThread());
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

    /** Asks a worker of this socket's port to run its requests. */
    final void postRun() {
        try {
            this.port.post(this.key, RUN);
        }
        catch (NativeIoException | PortClosedException ex) {
            logger.log(Level.WARNING, "Could not hand " + this + " to a worker", ex);
        }
    }

    /**
     * Asks for the socket to be closed, from any thread.
     * @param abort close without sending queued writes
     */
    final void requestClose(boolean abort) {
        STATE.getAndBitwiseOr(this, CLOSE_REQUESTED | (abort ? ABORT_REQUESTED : 0));
        requestRun();
    }

    /**
     * Asks for the socket to be closed once what already arrived on it has been handled and
     * answered: the close of a graceful shutdown.
     */
    final void requestDrainAndClose() {
        STATE.getAndBitwiseOr(this, CLOSE_REQUESTED | DRAIN_REQUESTED);
        requestRun();
    }

    /** Asks for the owner (or a worker, when nobody owns the socket) to run the socket's requests. */
    final void requestRun() {
        if (OWNER.getOpaque(this) == Thread.currentThread()) {
            return;
        }
        int current;
        do {
            current = this.state;
            if ((current & (REMOVING | FINISHED)) != 0) {
                return;
            }
            if ((current & OWNED) == 0) {
                postRun();
                return;
            }
        }
        while (!STATE.compareAndSet(this, current, current | RUN_REQUESTED));
    }

    /**
     * A change submitted for this socket's registration was applied (or refused).
     * @param runner the thread that applied it
     * @param operation the change
     * @param failure why it was refused, or {@code null}
     */
    final void changeApplied(Runner runner, Operation operation, NativeIoException failure) {
        this.observer.registrationChanged(operation, failure == null);
        if (operation == Operation.ENABLE) {
            int current = (int) STATE.getAndAdd(this, -REARM_ONE) - REARM_ONE;
            if (failure != null && (current & REMOVING) == 0) {
                logger.log(Level.WARNING, "The port refused to re-arm " + this + "; closing it", failure);
                STATE.getAndBitwiseOr(this, CLOSE_REQUESTED | ABORT_REQUESTED);
                notified(runner, 0);
            }
            finishIfDone();
        }
        else if (operation == Operation.REMOVE && failure != null) {
            // Nothing is registered (the socket was never armed, or is gone): no REMOVE will come.
            removed();
        }
    }

    /** The REMOVE notification arrived, or a REMOVE found nothing to remove. */
    final void removed() {
        STATE.getAndBitwiseOr(this, REMOVED);
        finishIfDone();
    }

    private void finishIfDone() {
        int current;
        do {
            current = this.state;
            boolean done = (current & REMOVED) != 0 && (current & (OWNED | FINISHED)) == 0 && (current >>> 16) == 0;
            if (!done) {
                return;
            }
        }
        while (!STATE.compareAndSet(this, current, current | FINISHED));
        finish();
    }

    /** Finishes a registration whose port is gone, at the end of a stop; does nothing if already finished. */
    final void forceFinish() {
        int current = (int) STATE.getAndBitwiseOr(this, FINISHED | REMOVING | REMOVED);
        if ((current & FINISHED) == 0) {
            finish();
        }
    }

    /** @return the state word, for tests and snapshots */
    final int state() {
        return this.state;
    }

    /** @return whether the registration is gone and its socket closed */
    final boolean isFinished() {
        return (this.state & FINISHED) != 0;
    }

    /** @return whether some thread handles the socket now */
    final boolean isOwned() {
        return (this.state & OWNED) != 0;
    }

    /** @return whether the calling thread handles the socket now */
    final boolean isOwnedByCurrentThread() {
        return OWNER.getOpaque(this) == Thread.currentThread();
    }

    /** @return whether a close was requested or is under way */
    final boolean isClosing() {
        return (this.state & (CLOSE_REQUESTED | REMOVING | FINISHED)) != 0;
    }

    /** @return whether a graceful shutdown asked to handle what arrived before closing */
    final boolean isDraining() {
        return (this.state & (DRAIN_REQUESTED | ABORT_REQUESTED)) == DRAIN_REQUESTED;
    }

    /** @return whether the close requested is an abort */
    final boolean isAborting() {
        return (this.state & ABORT_REQUESTED) != 0;
    }
}
