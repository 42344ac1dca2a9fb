package dev.sockstate.server.engine;

import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.PortClosedException;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.observer.ListenerObserver;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The state word of a socket the server serves, and what any thread may ask through it. The word
 * holds: {@link #OWNED} while a thread handles the socket (its turn, {@link SocketTurn}); events and
 * run requests that arrived meanwhile, which the owner handles before it lets go (a run request on
 * an unowned socket is posted once, and later ones wait for the turn it starts); the number of
 * re-arms submitted but not yet known to be applied; and the closing stages: a close asked for
 * (drained first, or aborted), REMOVE issued, REMOVE arrived, finished. The socket is finished (closed,
 * its state released, its handler told) only once the REMOVE notification arrived, nobody owns it
 * <em>and</em> no re-arm is in flight, so a descriptor is never reused while a change naming it is
 * still queued.
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

    static final int EVENTS_SHIFT = 8;

    static final int EVENTS_MASK = 0xff << EVENTS_SHIFT;

    /** Set while the owner handed the socket to a handler executor whose task has not taken it over yet. */
    static final int HANDED_OFF = 1 << 16;

    /**
     * Set when a one-shot change was submitted while an earlier one was in flight: once every
     * change is reported, a run arms the registration again (the earlier one may have come last).
     */
    static final int RECHECK_REQUESTED = 1 << 17;

    /** One re-arm submitted and not yet known to be applied: the count is in the bits above {@link #REARM_SHIFT}. */
    static final int REARM_SHIFT = 18;

    static final int REARM_ONE = 1 << REARM_SHIFT;

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

    /**
     * @param port the port the socket is registered with
     * @param sockets the backend's sockets
     * @param handle the socket
     * @param trigger how it is registered
     * @param observer its listener's observer
     * @param ownedByCreator whether the creating thread owns it from the start
     */
    SocketState(NotificationPort port, NativeSockets sockets, long handle, Trigger trigger, ListenerObserver observer,
            boolean ownedByCreator) {
        this.port = port;
        this.sockets = sockets;
        this.handle = handle;
        this.trigger = trigger;
        this.observer = observer;
        if (ownedByCreator) {
            this.state = OWNED;
            OWNER.setOpaque(this, Thread.currentThread());
        }
    }

    /** Releases everything once the registration is gone and no re-arm is in flight: closes the socket and calls back. */
    abstract void finish();

    /** @return the state word */
    final int word() {
        return this.state;
    }

    /** @return whether the word was {@code expected} and is now {@code update} */
    final boolean casWord(int expected, int update) {
        return STATE.compareAndSet(this, expected, update);
    }

    /** @param bits set in the word */
    final void orWord(int bits) {
        STATE.getAndBitwiseOr(this, bits);
    }

    /** @param thread the thread that owns the socket from now on, or {@code null} */
    final void owner(Thread thread) {
        OWNER.setOpaque(this, thread);
    }

    /**
     * Asks a worker of this socket's port to run its requests.
     * @return false when the port is closed (the server stopped): no worker will run them
     */
    final boolean postRun() {
        try {
            this.port.post(this.key, RUN);
        }
        catch (PortClosedException ex) {
            return false;
        }
        catch (NativeIoException ex) {
            logger.log(Level.WARNING, "Could not hand " + this + " to a worker", ex);
        }
        return true;
    }

    /**
     * Asks for the socket to be closed, from any thread.
     * @param abort close without sending queued writes
     */
    final void requestClose(boolean abort) {
        int current;
        do {
            current = this.state;
        }
        // A close asked for ends a graceful stop's drain: what is still unread is not handled.
        while (!STATE.compareAndSet(this, current, (current | CLOSE_REQUESTED | (abort ? ABORT_REQUESTED : 0)) & ~DRAIN_REQUESTED));
        requestRun();
    }

    /**
     * Asks for the socket to be closed once what already arrived on it has been handled and
     * answered: the close of a graceful shutdown.
     */
    final void requestDrainAndClose() {
        int current;
        do {
            current = this.state;
            if ((current & CLOSE_REQUESTED) != 0) {
                // Closing already, as the handler asked: that close stands.
                return;
            }
        }
        while (!STATE.compareAndSet(this, current, current | CLOSE_REQUESTED | DRAIN_REQUESTED));
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
            if ((current & (OWNED | RUN_REQUESTED)) == RUN_REQUESTED) {
                // Unowned with a run already posted: the turn it starts handles this request too.
                return;
            }
        }
        while (!STATE.compareAndSet(this, current, current | RUN_REQUESTED));
        if ((current & OWNED) == 0) {
            postRun();
        }
    }

    /**
     * Asks for a turn that runs the socket's requests, from any thread: as {@link #requestRun()},
     * but the owner asking makes its own turn go round once more before it lets go.
     */
    final void requestTurn() {
        if (OWNER.getOpaque(this) == Thread.currentThread()) {
            STATE.getAndBitwiseOr(this, RUN_REQUESTED);
            return;
        }
        requestRun();
    }

    /** The REMOVE notification arrived, or a REMOVE found nothing to remove. */
    final void removed() {
        STATE.getAndBitwiseOr(this, REMOVED);
        finishIfDone();
    }

    /** Finishes the socket once it is removed, unowned and no re-arm is in flight. */
    final void finishIfDone() {
        int current;
        do {
            current = this.state;
            boolean done = (current & REMOVED) != 0 && (current & (OWNED | FINISHED)) == 0 && (current >>> REARM_SHIFT) == 0;
            if (!done) {
                return;
            }
        }
        while (!STATE.compareAndSet(this, current, current | FINISHED));
        finish();
    }

    /**
     * Finishes a socket whose port is gone, at the end of a stop; does nothing if already finished. A
     * socket a live thread still handles (a handler call that outlasted the stop) is only asked to
     * abort: that thread finishes it as it lets go, so {@code onClose} never runs beside the call. A
     * socket handed to an executor whose task has not started is finished here, and the task, if it
     * ever runs, leaves it alone ({@link #takeOverHandedOff()}).
     */
    final void forceFinish() {
        while (true) {
            int current = this.state;
            if ((current & FINISHED) != 0) {
                return;
            }
            if ((current & (OWNED | HANDED_OFF)) == OWNED) {
                Thread owning = (Thread) OWNER.getOpaque(this);
                if (owning == null || owning.isAlive()) {
                    // Owned by a live thread (or one just claiming it): it finishes the socket as it lets go.
                    if (STATE.compareAndSet(this, current, current | CLOSE_REQUESTED | ABORT_REQUESTED)) {
                        return;
                    }
                    continue;
                }
            }
            if (STATE.compareAndSet(this, current, (current & ~HANDED_OFF) | FINISHED | REMOVING | REMOVED)) {
                finish();
                return;
            }
        }
    }

    /**
     * Hands the ownership to a handler executor's task: from now on the calling thread no longer finds
     * itself the owner; the task calls {@link #takeOverHandedOff()}.
     */
    final void handOver() {
        OWNER.setOpaque(this, null);
        STATE.getAndBitwiseOr(this, HANDED_OFF);
    }

    /**
     * Takes over the ownership handed over, on the thread that continues the turn.
     * @return false when a stop finished the socket meanwhile: the caller must leave it alone
     */
    final boolean takeOverHandedOff() {
        int current;
        do {
            current = this.state;
            if ((current & FINISHED) != 0) {
                return false;
            }
        }
        while (!STATE.compareAndSet(this, current, current & ~HANDED_OFF));
        OWNER.setOpaque(this, Thread.currentThread());
        return true;
    }

    /**
     * @return whether a handler's write is dropped now: the socket is aborted or going, or closing at
     * the handler's own request (a graceful stop's drain, which answers what arrived, still writes)
     */
    final boolean dropsWrites() {
        int current = this.state;
        return (current & (ABORT_REQUESTED | REMOVING | FINISHED)) != 0
                || (current & (CLOSE_REQUESTED | DRAIN_REQUESTED)) == CLOSE_REQUESTED;
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
