package dev.sockstate.server.engine.turn;

import dev.sockstate.port.Events;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.PortClosedException;
import dev.sockstate.port.RegistrationBatch;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.WorkerGroupState;
import dev.sockstate.server.observer.ServerObserver.DequeueOutcome;
import dev.sockstate.server.observer.WorkerObserver;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * One thread of a worker group: dequeues a batch from its port (the group's shared one, or its own),
 * dispatches it, and makes the registration changes of the sockets it carries part of its next call
 * on the port (on Windows that is one {@code ProcessSocketNotifications} call). A call that carries
 * changes does not wait, so their results are reported at once. Owns a read buffer and its batches,
 * so the dequeue path allocates nothing.
 */
public final class Worker implements Runnable, Runner {

    private static final System.Logger logger = System.getLogger(Worker.class.getName());

    /** Key of the posted message that stops workers; completion keys of sockets are never this large. */
    public static final long STOP_KEY = Long.MAX_VALUE;

    private final String groupName;

    private final SocketTable table;

    private final NotificationPort port;

    /** The registration changes collected for the next call on the port. */
    private final QueuedChanges changes;

    private final NotificationBatch notifications;

    private final long timeoutMillis;

    /**
     * Yields the processor ({@link Thread#yield}) once before a dequeue that may wait, after calls
     * that served sockets; {@code null} when the group does not.
     */
    private final @Nullable Runnable yielder;

    private final WorkerObserver observer;

    private final NativeBuffer readBuffer;

    private final PeerAddress peer = PeerAddress.empty();

    private final RegistrationBatch singleChange = new RegistrationBatch(1);

    private volatile boolean stopped;

    private volatile @Nullable Throwable failure;

    /** Whether no other worker dequeues from its port (a port per worker, or a group of one). */
    private final boolean alone;

    /**
     * Runs of sockets on its port that this worker asked for itself, while it ran another socket's
     * turn: run after the batch at hand, without a message through the port (no queue entry, no
     * eventfd write and read); only when no other worker could take them sooner. Its thread only.
     */
    private final ArrayDeque<SocketTurn> ownRuns = new ArrayDeque<>();

    private volatile @Nullable Thread thread;

    /** Whether sockets were served since the last dequeue that could wait. Its thread only. */
    private boolean served;

    /**
     * @param settings the group's settings
     * @param port the port this worker dequeues from
     * @param readBuffer the worker's read buffer
     * @param table the server's sockets by completion key
     * @param observer where to report the dequeue calls
     */
    public Worker(WorkerGroupSettings settings, NotificationPort port, NativeBuffer readBuffer, SocketTable table,
            WorkerObserver observer) {
        this(settings, port, readBuffer, table, observer, Worker::yieldProcessor);
    }

    /**
     * @param settings the group's settings
     * @param port the port this worker dequeues from
     * @param readBuffer the worker's read buffer
     * @param table the server's sockets by completion key
     * @param observer where to report the dequeue calls
     * @param yielder what yields the processor, when the settings ask for it (a test counts)
     */
    Worker(WorkerGroupSettings settings, NotificationPort port, NativeBuffer readBuffer, SocketTable table,
            WorkerObserver observer, Runnable yielder) {
        int changeCapacity = Math.max(64, settings.batchSize() * 2 + 256);
        this.groupName = settings.name();
        this.table = table;
        this.observer = observer;
        this.port = port;
        this.changes = new QueuedChanges(port, this.groupName, changeCapacity);
        this.notifications = new NotificationBatch(settings.batchSize());
        this.timeoutMillis = Math.max(1, settings.dequeueTimeout().toMillis());
        this.yielder = settings.yieldBeforeWait() ? yielder : null;
        this.readBuffer = readBuffer;
        this.alone = settings.notificationPorts() == settings.workers();
    }

    @Override
    public void run() {
        try {
            loop();
        }
        catch (Throwable ex) {
            this.failure = ex;
            logger.log(Level.ERROR, "Worker " + Thread.currentThread().getName() + " of group '" + this.groupName + "' died", ex);
            try {
                this.observer.died(ex);
            }
            catch (Throwable reporting) {
                ex.addSuppressed(reporting);
            }
        }
        finally {
            settleQueued();
        }
    }

    /**
     * On the way out (stopped, or dying), the changes this worker queued for its next batch call are
     * applied now, or, the port being closed, reported refused: no socket waits for a call that will
     * not come (a REMOVE completes its close, a refused re-arm closes its socket).
     */
    private void settleQueued() {
        try {
            this.changes.settle();
        }
        catch (Throwable ex) {
            logger.log(Level.WARNING, "Worker " + Thread.currentThread().getName() + " could not settle its queued changes", ex);
        }
    }

    private void loop() {
        WorkerThread self = (Thread.currentThread() instanceof WorkerThread thread) ? thread : null;
        // A dequeue and its handling are a call of their own: the JIT compiles a method it sees called
        // within the first thousands of calls, where a loop entered once runs interpreted until an
        // on-stack replacement compiles it, tens of thousands of its rounds later (seconds into a
        // server's first load), and again after each deoptimisation of the loop.
        while (!this.stopped) {
            if (!turn(self)) {
                return;
            }
        }
    }

    /**
     * One dequeue, carrying the changes queued since the last, and the handling of what it took.
     * @param self the worker's thread, {@code null} when the worker runs on a thread of another kind
     * @return whether to go on: {@code false} once the port closed
     */
    private boolean turn(@Nullable WorkerThread self) {
        if (self != null) {
            self.letGoOfHandled();
        }
        WorkerObserver observer = this.observer;
        boolean timed = observer.timesDequeues();
        int count;
        RegistrationBatch carried = this.changes.forNextCall();
        boolean mayWait = carried == null && this.ownRuns.isEmpty();
        Runnable yielder = this.yielder;
        if (mayWait && this.served && yielder != null) {
            // A peer the worker answered that was woken onto this processor can run now, and its
            // next request is often in by the time the dequeue looks, which then need not sleep.
            yielder.run();
        }
        long start = timed ? System.nanoTime() : 0;
        try {
            count = this.port.process(carried, this.notifications, mayWait ? this.timeoutMillis : 0);
        }
        catch (PortClosedException ex) {
            return false;
        }
        catch (NativeIoException ex) {
            if (carried != null) {
                // The call was refused whole, nothing applied: the change it could not take is found alone.
                this.changes.applyOneByOne(ex);
                return true;
            }
            failedDequeue(ex);
            return true;
        }
        catch (RuntimeException | LinkageError ex) {
            // Nothing was applied: the changes stay for the next call.
            failedDequeue(ex);
            return true;
        }
        long waited = timed ? System.nanoTime() - start : 0;
        this.changes.applied();
        int socketNotifications = dispatch(count);
        runOwn();
        DequeueOutcome outcome = (socketNotifications > 0) ? DequeueOutcome.NOTIFIED
                : (count > 0) ? DequeueOutcome.WOKEN : DequeueOutcome.TIMEOUT;
        observer.dequeued(socketNotifications, outcome, waited);
        // A call that could not wait (changes carried, own runs) keeps what was served before it.
        this.served = socketNotifications > 0 || (this.served && !mayWait);
        return true;
    }

    /**
     * Hands out the notifications the last dequeue stored: each to its socket's state word, posted
     * messages to theirs. Also called by the dispatch benchmark's fixture, which fills
     * {@link #notifications()} itself.
     * @param count how many notifications were stored
     * @return how many were socket notifications
     */
    public int dispatch(int count) {
        SocketTable table = this.table;
        int socketNotifications = 0;
        for (int i = 0; i < count; i++) {
            long key = this.notifications.key(i);
            if (this.notifications.isPosted(i)) {
                if (key == STOP_KEY) {
                    // Pass the message on, so that every waiting worker is woken in turn.
                    this.stopped = true;
                    postStop(this.port);
                    continue;
                }
                SocketTurn socket = table.get(key);
                if (socket != null) {
                    socket.notified(this, 0);
                }
                continue;
            }
            socketNotifications++;
            int events = this.notifications.events(i);
            SocketTurn socket = table.get(key);
            if (socket == null) {
                continue;
            }
            socket.observer.notification(events);
            if ((events & Events.REMOVE) != 0) {
                socket.removed(this);
            }
            else {
                socket.notified(this, events);
            }
        }
        return socketNotifications;
    }

    /**
     * Runs the sockets this worker asked runs of while it handled the batch, those asked for until now
     * only: what they ask for in turn waits for the next round, after a dequeue that does not wait.
     */
    private void runOwn() {
        for (int i = this.ownRuns.size(); i > 0 && !this.stopped; i--) {
            this.ownRuns.poll().notified(this, 0);
        }
    }

    /** @param socket a socket of the port this worker runs alone: run after the batch at hand, with no message through the port */
    void runLater(SocketTurn socket) {
        this.ownRuns.add(socket);
    }

    /** @return the calling thread's read buffer when it is a worker, else {@code null} */
    public static @Nullable NativeBuffer readBufferOfThisThread() {
        return (Thread.currentThread() instanceof WorkerThread thread) ? thread.worker.readBuffer : null;
    }

    /**
     * @param port a socket's port
     * @return whether the calling thread is the only worker of that port, serving: the one thread that
     * runs the turns of the port's sockets whose calls no executor makes
     */
    public static boolean runsAlone(NotificationPort port) {
        return Thread.currentThread() instanceof WorkerThread thread && thread.worker.isAloneOn(port);
    }

    /** @return whether this worker is the only one of that port, serving */
    boolean isAloneOn(NotificationPort port) {
        return this.port == port && this.alone && !this.stopped;
    }

    /**
     * Posts one stop message; each worker that takes it passes it on.
     * @param port the port to post it to
     */
    static void postStop(NotificationPort port) {
        try {
            port.post(STOP_KEY, 0);
        }
        catch (NativeIoException | PortClosedException ex) {
            // the port is closing: its waiters are woken anyway
        }
    }

    /** @return the port this worker dequeues from */
    NotificationPort port() {
        return this.port;
    }

    @Override
    public boolean isWorker() {
        return true;
    }

    @Override
    public boolean handsOn() {
        return false;
    }

    @Override
    public boolean dequeuesFrom(NotificationPort port) {
        return port == this.port;
    }

    @Override
    public void carry(SocketTurn socket) {
        this.changes.add(socket);
    }

    @Override
    public RegistrationBatch singleChange() {
        return this.singleChange;
    }

    @Override
    public NativeBuffer readBuffer() {
        return this.readBuffer;
    }

    @Override
    public PeerAddress peer() {
        return this.peer;
    }

    /** Yields the processor before a dequeue that may wait. */
    private static void yieldProcessor() {
        Thread.yield();
    }

    /** Logs a dequeue that failed and pauses before the next, which is not counted as following served sockets. */
    private void failedDequeue(Throwable failure) {
        logger.log(Level.WARNING, "Dequeue failed in group '" + this.groupName + "'; retrying", failure);
        this.served = false;
        try {
            Thread.sleep(10);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return the batch this worker dequeues into */
    public NotificationBatch notifications() {
        return this.notifications;
    }

    /** @return whether the calling thread is a worker's, of any group */
    public static boolean onWorkerThread() {
        return Thread.currentThread() instanceof WorkerThread;
    }

    /**
     * @return the port the calling thread dequeues from, if it is a worker's; {@code null} on any other
     * thread (what a connection the thread writes to may share, so that the write stays on this thread)
     */
    public static @Nullable NotificationPort currentPort() {
        return (Thread.currentThread() instanceof WorkerThread thread) ? thread.worker.port : null;
    }

    /**
     * @return where the calling worker starts its next round over a pool, zero or positive
     * (drawn at random by its thread alone, so that rounds do not fall into step); -1 on any other thread
     */
    public static int nextTurn() {
        return (Thread.currentThread() instanceof WorkerThread thread) ? thread.drawTurn() : -1;
    }

    /**
     * Marks what the calling thread handles from now on, if it is a worker's: the engine names the
     * connection whose handler it calls, so that what the handler starts can be tied to it.
     * @param what what it handles, {@code null} for nothing
     * @return what it handled before, to be marked again when this ends ({@code null} off the workers)
     */
    public static @Nullable Object handling(@Nullable Object what) {
        return (Thread.currentThread() instanceof WorkerThread thread) ? thread.handle(what) : null;
    }

    /** @return what the calling worker's thread handles now, as {@link #handling(Object)} marked it; {@code null} on any other thread */
    public static @Nullable Object handling() {
        return (Thread.currentThread() instanceof WorkerThread thread) ? thread.handled() : null;
    }

    /** Asks the worker to stop after its current batch. */
    void stop() {
        this.stopped = true;
    }

    /** @param thread the thread that runs this worker */
    void attach(Thread thread) {
        this.thread = thread;
    }

    /** @return whether the worker runs: its thread was started, runs, and did not fail */
    boolean isAlive() {
        Thread running = this.thread;
        // A worker that failed is dead from then on, as its death is reported, though its thread still ends.
        return running != null && running.isAlive() && this.failure == null;
    }

    /** @return the name of the worker's thread, interrupted, if it still runs; {@code null} if it ended */
    @Nullable String interruptIfAlive() {
        Thread running = this.thread;
        if (running == null || !running.isAlive()) {
            return null;
        }
        running.interrupt();
        return running.getName();
    }

    /**
     * Waits for the worker's thread to end.
     * @param millis how long at most
     * @return false when the waiting thread was interrupted
     */
    boolean join(long millis) {
        Thread running = this.thread;
        if (running == null) {
            return true;
        }
        try {
            running.join(millis);
            return true;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** @return the worker as seen from outside: its thread, whether it runs, why it died */
    WorkerGroupState.WorkerState describe() {
        Thread running = this.thread;
        Throwable died = this.failure;
        return new WorkerGroupState.WorkerState((running != null) ? running.getName() : "not started", isAlive(),
                (died != null) ? died.toString() : null);
    }
}
