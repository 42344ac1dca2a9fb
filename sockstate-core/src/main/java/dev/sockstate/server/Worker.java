package dev.sockstate.server;

import dev.sockstate.port.Events;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Operation;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.PortClosedException;
import dev.sockstate.port.RegistrationBatch;
import dev.sockstate.server.ServerObserver.DequeueOutcome;
import java.lang.System.Logger.Level;

/**
 * One thread of a worker group: dequeues a batch from its port (the group's shared one, or its own),
 * dispatches it, and hands
 * the re-arms it collected back to the port in its next batch call (on Windows that is one
 * {@code ProcessSocketNotifications} call). Owns a read buffer and its batches, so the dequeue path
 * allocates nothing.
 */
final class Worker implements Runnable {

    private static final System.Logger logger = System.getLogger(Worker.class.getName());

    private final PortGroup group;

    private final NotificationPort port;

    private final RegistrationBatch changes;

    private final Registration[] changeOwners;

    private final Operation[] appliedOperations;

    private final Registration[] appliedOwners;

    private final NativeIoException[] appliedFailures;

    private final NotificationBatch notifications;

    private final long timeoutMillis;

    private final WorkerObserver observer;

    final NativeBuffer readBuffer;

    final PeerAddress peer = PeerAddress.empty();

    private volatile boolean stopped;

    /** Whether {@link #applied()} is reporting, so that a nested call uses arrays of its own. */
    private boolean reporting;

    private volatile Throwable failure;

    private volatile Thread thread;

    Worker(PortGroup group, NotificationPort port, int number, int changeCapacity) {
        this.group = group;
        this.observer = group.observer.worker(group.settings.name(), number);
        this.port = port;
        this.changes = new RegistrationBatch(changeCapacity);
        this.changeOwners = new Registration[changeCapacity];
        this.appliedOperations = new Operation[changeCapacity];
        this.appliedOwners = new Registration[changeCapacity];
        this.appliedFailures = new NativeIoException[changeCapacity];
        this.notifications = new NotificationBatch(group.settings.batchSize());
        this.timeoutMillis = Math.max(1, group.settings.dequeueTimeout().toMillis());
        this.readBuffer = group.sockets.allocate(group.settings.readBufferSize());
    }

    @Override
    public void run() {
        try {
            loop();
        }
        catch (Throwable ex) {
            this.failure = ex;
            logger.log(Level.ERROR, "Worker " + Thread.currentThread().getName() + " of group '" + this.group.settings.name()
                    + "' died", ex);
        }
    }

    private void loop() {
        WorkerObserver observer = this.observer;
        boolean timed = observer.timesDequeues();
        String groupName = this.group.settings.name();
        while (!this.stopped) {
            long start = timed ? System.nanoTime() : 0;
            int count;
            try {
                count = this.port.process(this.changes.isEmpty() ? null : this.changes, this.notifications, this.timeoutMillis);
            }
            catch (PortClosedException ex) {
                return;
            }
            catch (NativeIoException | RuntimeException | LinkageError ex) {
                // Nothing was applied: the changes stay for the next call.
                logger.log(Level.WARNING, "Dequeue failed in group '" + groupName + "'; retrying", ex);
                pause();
                continue;
            }
            long waited = timed ? System.nanoTime() - start : 0;
            applied();
            int socketNotifications = dispatch(count);
            DequeueOutcome outcome = (socketNotifications > 0) ? DequeueOutcome.NOTIFIED
                    : (count > 0) ? DequeueOutcome.WOKEN : DequeueOutcome.TIMEOUT;
            observer.dequeued(socketNotifications, outcome, waited);
        }
    }

    /**
     * Hands out the notifications the last dequeue stored: each to its registration's claim word,
     * posted messages to theirs. Package-private for the dispatch benchmark, which fills
     * {@link #notifications()} itself.
     * @param count how many notifications were stored
     * @return how many were socket notifications
     */
    int dispatch(int count) {
        RegistrationTable table = this.group.table;
        int socketNotifications = 0;
        for (int i = 0; i < count; i++) {
            long key = this.notifications.key(i);
            if (this.notifications.isPosted(i)) {
                if (key == PortGroup.STOP_KEY) {
                    // Pass the message on, so that every waiting worker is woken in turn.
                    this.stopped = true;
                    PortGroup.postStop(this.port);
                    continue;
                }
                Registration registration = table.get(key);
                if (registration != null) {
                    registration.notified(this, 0);
                }
                continue;
            }
            socketNotifications++;
            int events = this.notifications.events(i);
            Registration registration = table.get(key);
            if (registration == null) {
                continue;
            }
            registration.observer().notification(events);
            if ((events & Events.REMOVE) != 0) {
                registration.removed();
            }
            else {
                registration.notified(this, events);
            }
        }
        return socketNotifications;
    }

    /** @return the port this worker dequeues from */
    NotificationPort port() {
        return this.port;
    }

    /**
     * Queues a registration change for this worker's next batch call; the registration must be
     * one of this worker's port.
     * @param registration whose change it is
     * @param operation the change
     * @param filter the events, for ENABLE
     */
    void submit(Registration registration, Operation operation, int filter) {
        if (this.changes.size() == this.changes.capacity()) {
            flush();
        }
        int index;
        if (operation == Operation.ENABLE) {
            index = this.changes.enable(registration.handle, registration.key, filter, registration.trigger());
        }
        else if (operation == Operation.REMOVE) {
            index = this.changes.remove(registration.handle, registration.key);
        }
        else {
            index = this.changes.disable(registration.handle, registration.key);
        }
        this.changeOwners[index] = registration;
    }

    /** Applies the changes collected so far at once, instead of in the next batch call. */
    void applyChanges() {
        if (!this.changes.isEmpty()) {
            flush();
        }
    }

    private void flush() {
        while (true) {
            try {
                this.port.apply(this.changes);
                applied();
                return;
            }
            catch (NativeIoException ex) {
                logger.log(Level.WARNING, "Applying registration changes failed in group '" + this.group.settings.name()
                        + "'; retrying", ex);
                pause();
            }
        }
    }

    /**
     * Reports the results of the changes the last call applied, then empties the batch. A report
     * may lead to more changes applied at once (a refused re-arm closes its socket), so a nested
     * call reports through arrays of its own.
     */
    private void applied() {
        int count = this.changes.size();
        if (count == 0) {
            return;
        }
        if (this.reporting) {
            report(count, new Operation[count], new Registration[count], new NativeIoException[count]);
            return;
        }
        this.reporting = true;
        try {
            report(count, this.appliedOperations, this.appliedOwners, this.appliedFailures);
        }
        finally {
            this.reporting = false;
        }
    }

    private void report(int count, Operation[] operations, Registration[] owners, NativeIoException[] failures) {
        for (int i = 0; i < count; i++) {
            operations[i] = this.changes.operation(i);
            owners[i] = this.changeOwners[i];
            failures[i] = this.changes.failed(i) ? this.changes.failure(i, "ProcessSocketNotifications") : null;
            this.changeOwners[i] = null;
        }
        this.changes.clear();
        for (int i = 0; i < count; i++) {
            Registration owner = owners[i];
            owners[i] = null;
            owner.changeApplied(this, operations[i], failures[i]);
            failures[i] = null;
        }
    }

    private static void pause() {
        try {
            Thread.sleep(10);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return the batch this worker dequeues into */
    NotificationBatch notifications() {
        return this.notifications;
    }

    /** Asks the worker to stop after its current batch. */
    void stop() {
        this.stopped = true;
    }

    /** @param thread the thread that runs this worker */
    void attach(Thread thread) {
        this.thread = thread;
    }

    /** @return the thread running this worker, once started */
    Thread thread() {
        return this.thread;
    }

    /** @return why the worker died, or {@code null} */
    Throwable failure() {
        return this.failure;
    }
}
