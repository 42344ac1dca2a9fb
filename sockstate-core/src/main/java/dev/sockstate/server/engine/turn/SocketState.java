package dev.sockstate.server.engine.turn;

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
 * The state word of a socket the server serves, and what any thread may ask through it. One thread
 * at a time owns the socket (its turn, {@link SocketTurn}); what others ask is folded into the word
 * and handled by the owner before it lets go. What the socket wants from its port is state too:
 * (its filter, kept by {@link SocketTurn}, and {@link #REMOVING}), applied by whoever applies a change, as they are at that
 * moment, so that an older change can never undo a newer one.
 *
 * <table>
 * <caption>The bits of the word</caption>
 * <tr><th>bit</th><th>set by</th><th>cleared by</th><th>with the others</th></tr>
 * <tr><td>{@link #OWNED}</td><td>the thread that claims the socket (a notification or a posted run
 * that finds it idle), or its creator</td><td>the owner letting go</td><td>never with
 * {@link #FINISHED}; never set again once {@link #REMOVING} is</td></tr>
 * <tr><td>{@link #HANDED_OFF}</td><td>the owner handing its turn to a handler executor</td><td>the
 * executor's task taking the turn over, or a stop finishing the socket</td><td>only with
 * {@link #OWNED}</td></tr>
 * <tr><td>events (8 bits at {@link #EVENTS_SHIFT})</td><td>a notification that finds the socket
 * owned</td><td>the owner, which handles them, or keeps them for its next turn when it
 * yields</td><td>any</td></tr>
 * <tr><td>{@link #RUN_REQUESTED}</td><td>any thread asking for a turn (a write, a close, a resumed
 * stage); an owner that yields</td><td>the thread that claims the socket, or the owner taking it in
 * its turn</td><td>unowned, it means a run is posted: later requests post none</td></tr>
 * <tr><td>{@link #CLOSE_REQUESTED}, {@link #ABORT_REQUESTED}</td><td>any thread</td><td>never</td><td>any</td></tr>
 * <tr><td>{@link #DRAIN_REQUESTED}</td><td>a graceful stop</td><td>a close asked for meanwhile</td><td>with
 * {@link #CLOSE_REQUESTED}</td></tr>
 * <tr><td>{@link #CARRIED}</td><td>an owner letting go, whose worker's next call on the port applies
 * the registration (Windows batches it with the dequeue)</td><td>that worker, once the call reported and
 * nothing newer is wanted</td><td>any; the socket is not finished while set</td></tr>
 * <tr><td>{@link #RESTATED}</td><td>whoever changes what the socket wants while a worker carries
 * it</td><td>the carrier reading the wanted state for its next call</td><td>only with
 * {@link #CARRIED}</td></tr>
 * <tr><td>{@link #REFUSED}</td><td>a carrier whose call the port refused the socket's change</td><td>the
 * owner, which hears of it in its turn</td><td>any</td></tr>
 * <tr><td>{@link #REMOVING}</td><td>the owner letting go to close: the registration is to be
 * removed</td><td>never</td><td>never with {@link #OWNED} again</td></tr>
 * <tr><td>{@link #REMOVED}</td><td>the REMOVE notification, or a REMOVE that found nothing</td><td>never</td><td>after
 * {@link #REMOVING}</td></tr>
 * <tr><td>{@link #FINISHED}</td><td>the thread that finds the socket removed, unowned and carried by
 * no worker, or a stop</td><td>never</td><td>final: the socket is closed and left the table</td></tr>
 * </table>
 * The socket is finished (closed, its handler told) only once its REMOVE arrived, nobody owns it and
 * no worker carries it, so a descriptor is never reused while a change naming it may still be applied.
 */
public abstract class SocketState {

    private static final System.Logger logger = System.getLogger(SocketState.class.getName());

    /** Payload of a posted message that asks a worker to run a socket's requests. */
    public static final int RUN = 1;

    public static final int OWNED = 1;

    public static final int CLOSE_REQUESTED = 1 << 1;

    public static final int ABORT_REQUESTED = 1 << 2;

    public static final int RUN_REQUESTED = 1 << 3;

    public static final int REMOVING = 1 << 4;

    public static final int REMOVED = 1 << 5;

    public static final int FINISHED = 1 << 6;

    public static final int DRAIN_REQUESTED = 1 << 7;

    public static final int EVENTS_SHIFT = 8;

    public static final int EVENTS_MASK = 0xff << EVENTS_SHIFT;

    /** Set while the owner handed the socket to a handler executor whose task has not taken it over yet. */
    public static final int HANDED_OFF = 1 << 16;

    /** A worker's next call on the port applies the socket's registration as it is then wanted. */
    public static final int CARRIED = 1 << 17;

    /** What the socket wants changed after its carrier read it: the carrier applies it once more. */
    public static final int RESTATED = 1 << 18;

    /** The port refused a change a worker carried: the owner hears of it ({@link #takeRefusal()}). */
    public static final int REFUSED = 1 << 19;

    /**
     * A worker that dequeues from the socket's port has had a turn of it: from then on, without a
     * handler executor, only such workers run its turns (the accepting worker of another port that
     * opened it does not any more).
     */
    public static final int HOMED = 1 << 20;

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
    public final NotificationPort port;

    public final NativeSockets sockets;

    public final long handle;

    /** How the socket is registered. */
    public final Trigger trigger;

    /** The observer of the socket's listener. */
    public final ListenerObserver observer;

    /** The completion key, set once when the socket enters the table. */
    long key;

    /** @return the completion key, set once when the socket entered the table */
    public final long key() {
        return this.key;
    }

    @SuppressWarnings("unused")
    private volatile int state;

    /**
     * Why the port refused a change of the registration: written by a carrier before it sets
     * {@link #REFUSED}, or kept by the owner until its handler hears of it; taken by the owner.
     */
    private volatile NativeIoException refusal;

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
    protected SocketState(NotificationPort port, NativeSockets sockets, long handle, Trigger trigger, ListenerObserver observer,
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

    /** Releases everything once the registration is gone and no worker carries it: closes the socket and calls back. */
    protected abstract void finish();

    /** @return the state word */
    public final int word() {
        return this.state;
    }

    /** @return whether the word was {@code expected} and is now {@code update} */
    public final boolean casWord(int expected, int update) {
        return STATE.compareAndSet(this, expected, update);
    }

    /** @param bits set in the word */
    public final void orWord(int bits) {
        STATE.getAndBitwiseOr(this, bits);
    }

    /** @param thread the thread that owns the socket from now on, or {@code null} */
    public final void owner(Thread thread) {
        OWNER.setOpaque(this, thread);
    }

    /**
     * The port refused a change a worker carried for this socket: recorded, and a turn asked for, in
     * which the owner hears of it. Runs no turn itself.
     * @param failure the port's refusal
     */
    public final void refused(NativeIoException failure) {
        this.refusal = failure;
        orWord(REFUSED);
        requestRun();
    }

    /** @param failure a refusal the owner keeps until the socket's handler hears of it */
    public final void keepRefusal(NativeIoException failure) {
        this.refusal = failure;
    }

    /** @return whether a refusal waits to be taken; the owner */
    public final boolean hasRefusal() {
        return this.refusal != null;
    }

    /** @return the refusal recorded with {@link #REFUSED} (which the caller cleared) or kept, {@code null} for none; the owner */
    public final NativeIoException takeRefusal() {
        NativeIoException failure = this.refusal;
        this.refusal = null;
        return failure;
    }

    /**
     * Asks a worker of this socket's port to run its requests.
     * @return false when the port is closed (the server stopped): no worker will run them
     */
    public final boolean postRun() {
        if (this instanceof SocketTurn turn && Worker.runHere(turn, this.port)) {
            return true;
        }
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
    public final void requestClose(boolean abort) {
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
    public final void requestDrainAndClose() {
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
    public final void requestRun() {
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
    public final void requestTurn() {
        if (OWNER.getOpaque(this) == Thread.currentThread()) {
            STATE.getAndBitwiseOr(this, RUN_REQUESTED);
            return;
        }
        requestRun();
    }

    /** The REMOVE notification arrived, or a REMOVE found nothing to remove. */
    public final void removed() {
        STATE.getAndBitwiseOr(this, REMOVED);
        finishIfDone();
    }

    /** Finishes the socket once it is removed, unowned and carried by no worker. */
    public final void finishIfDone() {
        int current;
        do {
            current = this.state;
            boolean done = (current & REMOVED) != 0 && (current & (OWNED | FINISHED | CARRIED)) == 0;
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
    public final void forceFinish() {
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
            if (STATE.compareAndSet(this, current, (current & ~(HANDED_OFF | CARRIED)) | FINISHED | REMOVING | REMOVED)) {
                finish();
                return;
            }
        }
    }

    /**
     * Hands the ownership to a handler executor's task: from now on the calling thread no longer finds
     * itself the owner; the task calls {@link #takeOverHandedOff()}.
     */
    public final void handOver() {
        OWNER.setOpaque(this, null);
        STATE.getAndBitwiseOr(this, HANDED_OFF);
    }

    /**
     * Takes over the ownership handed over, on the thread that continues the turn.
     * @return false when a stop finished the socket meanwhile: the caller must leave it alone
     */
    public final boolean takeOverHandedOff() {
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
    public final boolean dropsWrites() {
        int current = this.state;
        return (current & (ABORT_REQUESTED | REMOVING | FINISHED)) != 0
                || (current & (CLOSE_REQUESTED | DRAIN_REQUESTED)) == CLOSE_REQUESTED;
    }

    /** @return the state word, for tests and snapshots */
    public final int state() {
        return this.state;
    }

    /** @return whether the registration is gone and its socket closed */
    public final boolean isFinished() {
        return (this.state & FINISHED) != 0;
    }

    /** @return whether some thread handles the socket now */
    public final boolean isOwned() {
        return (this.state & OWNED) != 0;
    }

    /** @return whether the calling thread handles the socket now */
    public final boolean isOwnedByCurrentThread() {
        return OWNER.getOpaque(this) == Thread.currentThread();
    }

    /** @return whether a worker of the socket's port has had a turn of it ({@link #HOMED}); any thread */
    public final boolean isHomed() {
        return (this.state & HOMED) != 0;
    }

    /** @return whether a close was requested or is under way */
    public final boolean isClosing() {
        return (this.state & (CLOSE_REQUESTED | REMOVING | FINISHED)) != 0;
    }

    /** @return whether a graceful shutdown asked to handle what arrived before closing */
    public final boolean isDraining() {
        return (this.state & (DRAIN_REQUESTED | ABORT_REQUESTED)) == DRAIN_REQUESTED;
    }

    /** @return whether the close requested is an abort */
    public final boolean isAborting() {
        return (this.state & ABORT_REQUESTED) != 0;
    }
}
