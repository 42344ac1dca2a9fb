package dev.sockstate.port.nio;

import dev.sockstate.port.AbstractNotificationPort;
import dev.sockstate.port.Events;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.Operation;
import dev.sockstate.port.RegistrationBatch;
import dev.sockstate.port.Trigger;
import java.io.IOException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A notification port over one {@link Selector}, for any number of dequeuing threads.
 * <p>
 * <b>Dequeuing.</b> Notifications wait in a ready list (registrations, each queued once with its
 * events joined, as a port coalesces them) and posted messages in a queue, both under one lock. A
 * caller takes from them, after polling the selector once when nobody selects (so that sockets
 * that became ready queue behind what waits, as on epoll, where every wait sees them, and a stream
 * of posted messages starves none); when they are empty and nobody selects, it becomes the selecting thread:
 * it leaves the lock, selects, and under the lock again turns what it found into notifications in
 * the ready list, takes its batch's worth and signals a waiter, which takes what is left or selects
 * next (leader and followers). Callers that find someone selecting wait for that batch. Everything
 * is handed out under the lock, so each notification goes to exactly one thread.
 * <p>
 * <b>Changes</b> are applied under the lock, before the same call dequeues, as interest-set changes
 * (effective at the next select since JDK 11, without blocking a select under way); one that must be
 * seen by the select under way (more interest) wakes it. A one-shot registration's interest is
 * emptied when it notifies; DISABLE empties it; REMOVE empties it and queues one REMOVE notification,
 * joined with the events already waiting for the registration. Keys are cancelled only when their
 * socket closes, so a socket is never re-registered while a cancelled key of it is pending.
 * <p>
 * <b>Edges</b> over a level selector: an edge-triggered registration that notifies a side (read or
 * write) takes that side out of its interest until its owner reads, accepts or writes to a
 * would-block on this backend's sockets, or enables it again. Data that arrives meanwhile raises no
 * notification, which the portable guarantee allows (read until would-block after every edge);
 * data already there when it is enabled may raise one, which it allows too.
 * <p>
 * <b>Hang-ups and errors.</b> A selector reports readiness only, and readiness it found may be
 * stale by the time it is handed out (the owner may have read meanwhile), so neither HANGUP nor ERR
 * is ever reported: a FIN or a reset shows as IN to a registration that asks for IN, and the read
 * that reaches it tells it ({@link NioBackend#notifiesHangups()}, {@link NioBackend#notifiesErrors()}).
 * A registration for HANGUP without IN (a stage holds the input) hears nothing of the socket: its
 * read side is masked when found readable, so a level registration does not spin, until it is
 * enabled again.
 * <p>
 * An interrupt neither ends a wait nor closes anything, as on the native backends: a caller's
 * interrupt status is cleared for the call and set again when it returns.
 */
final class NioPort extends AbstractNotificationPort {

    private final Selector selector;

    private final ReentrantLock lock = new ReentrantLock();

    /** Signalled when a batch was found or something was queued: a waiter takes it, or selects next. */
    private final Condition work = this.lock.newCondition();

    private final PostedQueue posted = new PostedQueue();

    private @Nullable Registration readyHead;

    private @Nullable Registration readyTail;

    private boolean selecting;

    private int waiters;

    private boolean closing;

    /** The selecting thread's findings; only the thread that selects touches it. */
    private final Found found = new Found();

    private final HandleTable table;

    private NioPort(Selector selector, HandleTable table) {
        this.selector = selector;
        this.table = table;
    }

    /**
     * @param table the sockets the port registers, by handle
     * @return a new port
     * @throws NativeIoException when the selector could not be opened
     */
    static NioPort open(HandleTable table) throws NativeIoException {
        try {
            return new NioPort(Selector.open(), table);
        }
        catch (IOException ex) {
            throw JdkErrors.exception("Selector.open", ex);
        }
    }

    @Override
    public String backendName() {
        return NioBackend.NAME;
    }

    @Override
    protected int doProcess(@Nullable RegistrationBatch changes, @Nullable NotificationBatch notifications, long timeoutMillis)
            throws NativeIoException {
        boolean interrupted = Thread.interrupted();
        this.lock.lock();
        try {
            if (changes != null && !changes.isEmpty()) {
                applyChanges(changes);
            }
            if (notifications == null) {
                return 0;
            }
            return takeOrWait(notifications, timeoutMillis);
        }
        finally {
            this.lock.unlock();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ---- dequeuing --------------------------------------------------------------------------------

    /** Takes what is queued, else selects or waits for the thread that selects; the lock is held. */
    private int takeOrWait(NotificationBatch batch, long timeoutMillis) throws NativeIoException {
        long deadline = (timeoutMillis > 0) ? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis) : 0;
        boolean selected = false;
        boolean interrupted = false;
        try {
            while (true) {
                if (!selected && !this.selecting && (this.readyHead != null || this.posted.size() > 0)) {
                    // Polls once before taking, as each epoll_wait sees the sockets: readiness found now
                    // queues behind what waits, so a stream of posted messages cannot hide the sockets.
                    interrupted |= selectAndCollect(0);
                    selected = true;
                }
                int taken = take(batch);
                if (taken > 0 || this.closing) {
                    return taken;
                }
                long waitNanos = (timeoutMillis == INFINITE) ? -1 : (timeoutMillis == 0) ? 0 : Math.max(0, deadline - System.nanoTime());
                if (!this.selecting) {
                    if (waitNanos == 0 && selected) {
                        return 0;
                    }
                    interrupted |= selectAndCollect(waitNanos);
                    selected = true;
                }
                else if (waitNanos == 0) {
                    return 0;
                }
                else {
                    interrupted |= awaitWork(waitNanos);
                }
            }
        }
        finally {
            if (interrupted) {
                // Kept for doProcess, which sets the status again once the lock is left.
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Selects outside the lock, then queues what was found and wakes a waiter to take the rest or
     * select next.
     * @return whether the thread was interrupted meanwhile (its status is cleared)
     */
    private boolean selectAndCollect(long waitNanos) throws NativeIoException {
        this.selecting = true;
        this.lock.unlock();
        int count = 0;
        try {
            count = select(waitNanos);
            return Thread.interrupted();
        }
        catch (IOException ex) {
            throw JdkErrors.exception("select", ex);
        }
        finally {
            this.lock.lock();
            this.selecting = false;
            try {
                collect(count);
            }
            finally {
                if (this.waiters > 0) {
                    this.work.signal();
                }
            }
        }
    }

    private int select(long waitNanos) throws IOException {
        Found findings = this.found;
        findings.count = 0;
        if (waitNanos == 0) {
            this.selector.selectNow(findings);
        }
        else if (waitNanos < 0) {
            this.selector.select(findings);
        }
        else {
            this.selector.select(findings, Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos + 999_999)));
        }
        return findings.count;
    }

    /** Turns what a select found into notifications in the ready list; the lock is held. */
    private void collect(int count) {
        Found findings = this.found;
        for (int i = 0; i < count; i++) {
            Registration registration = findings.registrations[i];
            findings.registrations[i] = null;
            if (!registration.removed && registration.armed) {
                ready(registration, findings.ops[i]);
            }
        }
    }

    /** Reports what a registration was found ready for, as its filter and trigger say. */
    private void ready(Registration registration, int ops) {
        int filter = registration.filter;
        int events = 0;
        int sides = 0;
        if ((ops & (SelectionKey.OP_READ | SelectionKey.OP_ACCEPT)) != 0) {
            if ((filter & Events.IN) != 0) {
                events |= Events.IN;
            }
            if (events != 0) {
                sides |= Registration.READ_SIDE;
            }
            else {
                // HANGUP alone, with data waiting: wait for a read or an enable rather than spin.
                registration.masked |= Registration.READ_SIDE;
            }
        }
        if ((ops & (SelectionKey.OP_WRITE | SelectionKey.OP_CONNECT)) != 0 && (filter & Events.OUT) != 0) {
            events |= Events.OUT;
            sides |= Registration.WRITE_SIDE;
        }
        else if ((ops & SelectionKey.OP_CONNECT) != 0) {
            // Asked for input only: the connect's end is no event of its own, so the port ends the
            // connect (a failure stays for the socket's next call) and waits for input.
            registration.socket.endConnectQuietly();
        }
        if ((registration.triggerFlags & Trigger.ONESHOT) != 0 && events != 0) {
            registration.armed = false;
        }
        else if ((registration.triggerFlags & Trigger.EDGE) != 0) {
            registration.masked |= sides;
        }
        updateInterest(registration);
        if (events != 0) {
            queue(registration, registration.completionKey, events);
        }
    }

    /**
     * Waits for a batch or a queued entry.
     * @return whether the thread was interrupted meanwhile (its status is cleared)
     */
    private boolean awaitWork(long waitNanos) {
        this.waiters++;
        try {
            if (waitNanos < 0) {
                this.work.await();
            }
            else {
                this.work.awaitNanos(waitNanos);
            }
            return false;
        }
        catch (InterruptedException ex) {
            return true;
        }
        finally {
            this.waiters--;
        }
    }

    /** Fills the batch from the ready list and the posted queue, in turn; the lock is held. */
    private int take(NotificationBatch batch) {
        int capacity = batch.capacity();
        int taken = 0;
        while (taken < capacity && (this.readyHead != null || this.posted.size() > 0)) {
            Registration registration = this.readyHead;
            if (registration != null) {
                this.readyHead = registration.next;
                if (this.readyHead == null) {
                    this.readyTail = null;
                }
                registration.next = null;
                registration.queued = false;
                storeNotification(batch, taken++, registration.pendingKey, registration.pending);
                registration.pending = 0;
            }
            if (taken < capacity && this.posted.size() > 0) {
                storePosted(batch, taken++, this.posted.headKey(), this.posted.headPayload());
                this.posted.removeHead();
            }
        }
        storeSize(batch, taken);
        if (taken > 0 && (this.readyHead != null || this.posted.size() > 0)) {
            passOn();
        }
        return taken;
    }

    /** Queues a notification, joined with the one already waiting for the registration; the lock is held. */
    private void queue(Registration registration, long key, int events) {
        if (registration.queued) {
            registration.pending |= events;
            registration.pendingKey = key;
            return;
        }
        registration.queued = true;
        registration.pending = events;
        registration.pendingKey = key;
        if (this.readyTail == null) {
            this.readyHead = registration;
        }
        else {
            this.readyTail.next = registration;
        }
        this.readyTail = registration;
    }

    /** Something waits to be taken: a waiter takes it, else the select under way returns for it. */
    private void passOn() {
        if (this.waiters > 0) {
            this.work.signal();
        }
        else if (this.selecting) {
            this.selector.wakeup();
        }
    }

    // ---- registration changes ----------------------------------------------------------------------

    private void applyChanges(RegistrationBatch changes) {
        boolean wake = false;
        boolean queued = false;
        for (int i = 0; i < changes.size(); i++) {
            NioSocket socket = this.table.get(changes.socket(i));
            if (socket == null) {
                storeResult(changes, i, NativeError.BAD_DESCRIPTOR, 0);
                continue;
            }
            Operation operation = changes.operation(i);
            Registration registration = socket.registrationOn(this);
            if (operation == Operation.ENABLE) {
                NativeError refused = enable(socket, registration, changes, i);
                storeResult(changes, i, refused, 0);
                wake |= refused == null;
                continue;
            }
            if (registration == null) {
                storeResult(changes, i, NativeError.NOT_REGISTERED, 0);
                continue;
            }
            registration.armed = false;
            if (operation == Operation.REMOVE) {
                remove(registration, changes.key(i));
                queued = true;
            }
            updateInterest(registration);
            storeResult(changes, i, null, 0);
        }
        if (queued) {
            passOn();
        }
        if (wake && this.selecting) {
            // The select under way would not see more interest until it returns.
            this.selector.wakeup();
        }
    }

    /** @return why the ENABLE was refused, or {@code null} when it was applied */
    private @Nullable NativeError enable(NioSocket socket, @Nullable Registration current, RegistrationBatch changes, int index) {
        Registration registration = current;
        if (registration == null) {
            SelectableChannel channel = socket.selectable();
            try {
                SelectionKey key = channel.keyFor(this.selector);
                if (key == null) {
                    key = channel.register(this.selector, 0);
                    socket.keyedBy(this);
                }
                registration = new Registration(this, socket, key);
                key.attach(registration);
            }
            catch (ClosedChannelException | CancelledKeyException ex) {
                return NativeError.BAD_DESCRIPTOR;
            }
            catch (RuntimeException ex) {
                return NativeError.INVALID_ARGUMENT;
            }
            socket.attach(registration);
        }
        registration.completionKey = changes.key(index);
        registration.filter = changes.filter(index);
        registration.triggerFlags = changes.triggerFlags(index);
        registration.armed = true;
        registration.masked = 0;
        return updateInterest(registration) ? null : NativeError.BAD_DESCRIPTOR;
    }

    private void remove(Registration registration, long key) {
        registration.removed = true;
        registration.socket.detach(registration);
        if (!registration.queued || registration.pendingKey == key) {
            // Removed, it is found no more: the REMOVE it carries (joined with what waits) is its last.
            queue(registration, key, Events.REMOVE);
        }
        else {
            queue(new Registration(this, registration.socket, null), key, Events.REMOVE);
        }
    }

    /**
     * Sets the key's interest from the registration's filter, arming and masked sides.
     * @return false when the key was cancelled (its socket closed)
     */
    private boolean updateInterest(Registration registration) {
        int ops = 0;
        if (registration.armed && !registration.removed && registration.socket.connecting) {
            // A connection-pending channel is neither readable nor writable to the JDK (OP_READ would
            // make level epoll report, and the JDK drop, the same readiness again and again): its
            // connect's end is what it waits for, whichever events it asks for.
            if ((registration.filter & (Events.IN | Events.HANGUP | Events.OUT)) != 0) {
                ops = SelectionKey.OP_CONNECT;
            }
        }
        else if (registration.armed && !registration.removed) {
            int filter = registration.filter;
            int masked = registration.masked;
            NioSocket socket = registration.socket;
            if ((filter & (Events.IN | Events.HANGUP)) != 0 && (masked & Registration.READ_SIDE) == 0) {
                ops |= socket.readOps();
            }
            if ((filter & Events.OUT) != 0 && (masked & Registration.WRITE_SIDE) == 0) {
                ops |= socket.writeOps();
            }
        }
        SelectionKey key = registration.key;
        try {
            if (key.interestOps() != ops) {
                key.interestOps(ops);
            }
            return true;
        }
        catch (CancelledKeyException ex) {
            return false;
        }
    }

    // ---- calls from the sockets --------------------------------------------------------------------

    /**
     * Re-arms a side of a registration after its owner saw a would-block on it.
     * @param registration a registration of this port
     * @param side {@link Registration#READ_SIDE} or {@link Registration#WRITE_SIDE}
     */
    void unmask(Registration registration, int side) {
        this.lock.lock();
        try {
            if (registration.removed || (registration.masked & side) == 0 || this.closing) {
                return;
            }
            registration.masked &= ~side;
            if (updateInterest(registration) && this.selecting) {
                this.selector.wakeup();
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /** @param registration a registration whose channel's interest changed (a connect began or ended) */
    void refresh(Registration registration) {
        this.lock.lock();
        try {
            if (!registration.removed && !this.closing && updateInterest(registration) && this.selecting) {
                this.selector.wakeup();
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Ends a registration silently: its socket is closing (no REMOVE follows). What already waits in
     * the ready list is still delivered, as the contract allows.
     * @param registration a registration of this port
     */
    void socketClosing(Registration registration) {
        this.lock.lock();
        try {
            registration.removed = true;
            registration.armed = false;
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Lets the selector deregister a closed channel's key now, which is when the JDK closes the
     * descriptor of a channel that was registered (until then it only shuts its output): the select
     * under way is woken, which deregisters it as it returns; with none under way, this thread
     * selects once, without waiting, and queues what that finds.
     */
    void socketClosed() {
        this.lock.lock();
        try {
            if (this.closing) {
                return;
            }
            if (this.selecting) {
                this.selector.wakeup();
                return;
            }
            int count = 0;
            try {
                count = select(0);
                }
            catch (IOException ex) {
                // The descriptor is closed by the next select instead.
            }
            finally {
                collect(count);
            }
            if (this.readyHead != null) {
                passOn();
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    // ---- posting and closing -----------------------------------------------------------------------

    @Override
    protected void doPost(long key, int payload) {
        this.lock.lock();
        try {
            this.posted.add(key, payload);
            passOn();
        }
        finally {
            this.lock.unlock();
        }
    }

    @Override
    protected void wakeAllForClose() {
        this.lock.lock();
        try {
            this.closing = true;
            this.work.signalAll();
        }
        finally {
            this.lock.unlock();
        }
        this.selector.wakeup();
    }

    @Override
    protected void release() {
        for (SelectionKey key : this.selector.keys()) {
            if (key.attachment() instanceof Registration registration) {
                registration.socket.detach(registration);
                registration.socket.unkeyedBy(this);
            }
        }
        try {
            this.selector.close();
        }
        catch (IOException ex) {
            // Closing a selector fails only when its wake-up pipe does; nothing is left to release.
        }
        this.posted.clear();
        this.readyHead = null;
        this.readyTail = null;
    }

    @Override
    public String toString() {
        return "nio(" + this.selector + ")";
    }

    /** What one select found: registrations and their ready ops, collected by the select's action. */
    private static final class Found implements Consumer<SelectionKey> {

        Registration[] registrations = new Registration[64];

        int[] ops = new int[64];

        int count;

        @Override
        public void accept(SelectionKey key) {
            if (this.count == this.ops.length) {
                this.registrations = Arrays.copyOf(this.registrations, this.count * 2);
                this.ops = Arrays.copyOf(this.ops, this.count * 2);
            }
            this.registrations[this.count] = (Registration) key.attachment();
            this.ops[this.count++] = key.readyOps();
        }
    }
}
