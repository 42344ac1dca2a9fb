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
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * A socket the server serves and its turns, the one place where a socket is owned, handled, re-armed
 * and closed: a notification (or a run request) that finds the socket idle claims it through its
 * state word, one that finds it owned folds its events in and returns, and
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
 * <p>
 * <b>The state word.</b> What any thread may ask goes through the socket's state word. One thread
 * at a time owns the socket (its turn); what others ask is folded into the word
 * and handled by the owner before it lets go. What the socket wants from its port is state too:
 * (its filter, and {@link #REMOVING}), applied by whoever applies a change, as they are at that
 * moment, so that an older change can never undo a newer one.
 *
 * <table>
 * <caption>The bits of the word</caption>
 * <tr><th>bit</th><th>set by</th><th>cleared by</th><th>with the others</th></tr>
 * <tr><td>{@link #OWNED}</td><td>the thread that claims the socket (a notification or a posted run
 * that finds it idle), or its creator</td><td>the owner letting go</td><td>never with
 * {@link #FINISHED}; once {@link #REMOVING} is, set again only by the worker that heard of the REMOVE,
 * for the socket's last turn ({@link #removed(Runner)})</td></tr>
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
 * removed</td><td>never</td><td>with {@link #OWNED} again only for the last turn</td></tr>
 * <tr><td>{@link #REMOVED}</td><td>the REMOVE notification, or a REMOVE that found nothing</td><td>never</td><td>after
 * {@link #REMOVING}</td></tr>
 * <tr><td>{@link #FINISHED}</td><td>the thread that finds the socket removed, unowned and carried by
 * no worker, or a stop</td><td>never</td><td>final: the socket is closed and left the table</td></tr>
 * </table>
 * The socket is finished (closed, its handler told) only once its REMOVE arrived, nobody owns it and
 * no worker carries it, so a descriptor is never reused while a change naming it may still be applied.
 */
public abstract class SocketTurn {

    private static final System.Logger logger = System.getLogger(SocketTurn.class.getName());

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

    /** Work (reads, rounds of requests) in one turn before other sockets get theirs. */
    public static final int TURN_BUDGET = 16;

    private static final VarHandle STATE;

    private static final VarHandle OWNER;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(SocketTurn.class, "state", int.class);
            OWNER = MethodHandles.lookup().findVarHandle(SocketTurn.class, "owner", Thread.class);
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
    private volatile @Nullable NativeIoException refusal;

    /**
     * The thread that owns the socket, or {@code null}. Only ever compared with the reading thread
     * itself, which always sees its own last write, so plain (opaque) accesses suffice: a thread
     * finds itself here exactly while it owns the socket, without a fence on every turn.
     */
    private @Nullable Thread owner;

    private final Table table;

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
    protected SocketTurn(NotificationPort port, NativeSockets sockets, Table table, long handle, Trigger trigger,
            ListenerObserver observer, boolean ownedByCreator, ChangeRules rules) {
        this.port = port;
        this.sockets = sockets;
        this.handle = handle;
        this.trigger = trigger;
        this.observer = observer;
        if (ownedByCreator) {
            this.state = OWNED;
            OWNER.setOpaque(this, Thread.currentThread());
        }
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
    public final void owner(@Nullable Thread thread) {
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
    public final @Nullable NativeIoException takeRefusal() {
        NativeIoException failure = this.refusal;
        this.refusal = null;
        return failure;
    }

    /**
     * Asks a worker of this socket's port to run its requests.
     * @return false when the port is closed (the server stopped): no worker will run them
     */
    public final boolean postRun() {
        Runner.Alone alone = Runner.aloneOn(this.port);
        if (alone != null) {
            alone.runLater(this);
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

    /**
     * The REMOVE notification arrived, dequeued by a worker of the socket's port: a socket nobody
     * owns has its {@linkplain #lastTurn last turn} on that worker, which owns it meanwhile (so that a
     * stop's {@link #forceFinish} only asks it to abort), then finishes as after {@link #removed()}.
     * @param runner the worker that dequeued the notification
     */
    public final void removed(Runner runner) {
        int current;
        do {
            current = this.state;
            if ((current & (OWNED | FINISHED)) != 0) {
                removed();
                return;
            }
        }
        while (!STATE.compareAndSet(this, current, current | OWNED));
        OWNER.setOpaque(this, Thread.currentThread());
        try {
            lastTurn(runner);
        }
        finally {
            OWNER.setOpaque(this, null);
            int now;
            do {
                now = this.state;
            }
            while (!STATE.compareAndSet(this, now, (now & ~OWNED) | REMOVED));
            finishIfDone();
        }
    }

    /**
     * Runs once the registration is gone and before the socket closes, on the worker that heard so,
     * which owns the socket meanwhile: no notification or run request reaches a socket that is
     * {@link #REMOVING}. Nothing by default.
     * @param runner that worker
     */
    protected void lastTurn(Runner runner) {
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

    /** Releases everything once the registration is gone and no worker carries it: closes the socket and calls back. */
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

    /**
     * Leaves the table and hands the socket to another thread to close: a close that waits (a positive
     * SO_LINGER). The descriptor stays open until then, so its number is not reused meanwhile.
     * @param closer what closes it
     */
    public final void closeSocketLater(LongConsumer closer) {
        this.table.remove(this);
        closer.accept(this.handle);
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

    /**
     * A failure of the runtime itself (not of a handler) during this socket's turn: logged, and the
     * socket is aborted; a connection tells its handler too.
     */
    public void runtimeFailed(Throwable failure) {
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
    private @Nullable Operation changeFor(int filter, boolean appliedSinceEvents) {
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
    private @Nullable NativeIoException applyNow(Runner runner, Operation operation, int filter) {
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

    /** Where sockets have their completion keys ({@link SocketTable}): a socket leaves it as it closes. */
    public interface Table {

        /** @param socket a socket that closed: its completion key finds nothing from now on */
        void remove(SocketTurn socket);
    }
}
