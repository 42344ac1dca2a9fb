package dev.sockstate.port;

import dev.sockstate.port.MisbehavingBackend.Fault;
import dev.sockstate.port.MisbehavingBackend.Registration;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The port of a {@link MisbehavingBackend}: a real port whose waits may end early, which notifies
 * registrations that nothing made ready, notifies closed sockets once more, delivers what faults of
 * the sockets owe, and (when asked) refuses ENABLEs.
 */
final class MisbehavingPort extends ForwardingPort {

    /** The key of this port's own wake-ups, taken out of the batches before anyone sees them. */
    private static final long WAKE_KEY = Long.MIN_VALUE + 7;

    private final MisbehavingBackend backend;

    /** This port's registrations, by key. */
    private final Map<Long, Registration> byKey = new ConcurrentHashMap<>();

    private final Set<Registration> owing = ConcurrentHashMap.newKeySet();

    /** Keys and filters of sockets closed while armed, to notify once more. */
    private final Queue<long[]> stale = new ConcurrentLinkedQueue<>();

    private volatile Thread dequeuer;

    /** Whether more than one thread dequeues from this port. */
    private volatile boolean shared;

    MisbehavingPort(NotificationPort real, MisbehavingBackend backend) {
        super(real);
        this.backend = backend;
    }

    @Override
    protected int doProcess(RegistrationBatch changes, NotificationBatch notifications, long timeoutMillis)
            throws NativeIoException {
        // Recorded before the real call applies them: a notification of the arm may come from the
        // moment it is applied, to any thread dequeuing.
        recordChanges(changes);
        if (notifications == null) {
            int count = super.doProcess(changes, null, timeoutMillis);
            afterChanges(changes);
            return count;
        }
        noteDequeuer();
        boolean early = timeoutMillis != 0 && (hasDeliverable() || this.backend.chance(Fault.EARLY_WAKE));
        int count = super.doProcess(changes, notifications, early ? 0 : timeoutMillis);
        afterChanges(changes);
        count = dropWakes(notifications, count);
        count = recordNotifications(notifications, count);
        count = deliverStale(notifications, count);
        count = deliverOwed(notifications, count);
        count = notifySpuriously(notifications, count);
        storeSize(notifications, count);
        return count;
    }

    /**
     * Owes a registration what a fault of its socket hid; a thread that does not dequeue from this
     * port wakes the one that does, as the edge it stands for would have.
     */
    void owes(Registration registration) {
        this.owing.add(registration);
        if (Thread.currentThread() != this.dequeuer) {
            try {
                super.doPost(WAKE_KEY, 0);
            }
            catch (NativeIoException | PortClosedException ex) {
                // The port is closing: nothing waits any more.
            }
        }
    }

    /** Forgets a registration whose socket was closed; notifies it once more, now and then, if it was armed. */
    void closed(Registration registration) {
        this.byKey.remove(registration.key, registration);
        this.owing.remove(registration);
        int events = registration.filter & (Events.IN | Events.OUT);
        if (registration.enabled && events != 0 && this.backend.chance(Fault.STALE)) {
            this.stale.add(new long[] { registration.key, events });
        }
    }

    private void noteDequeuer() {
        Thread current = Thread.currentThread();
        Thread first = this.dequeuer;
        if (first == null) {
            this.dequeuer = current;
        }
        else if (first != current) {
            this.shared = true;
        }
    }

    private boolean hasDeliverable() {
        if (!this.stale.isEmpty()) {
            return true;
        }
        for (Registration registration : this.owing) {
            if (registration.enabled) {
                return true;
            }
        }
        return false;
    }

    /** After the real call: a change it refused is undone here, and an accepted connection's first ENABLE may be refused. */
    private void afterChanges(RegistrationBatch changes) throws NativeIoException {
        if (changes == null) {
            return;
        }
        for (int i = 0; i < changes.size(); i++) {
            long socket = changes.socket(i);
            if (changes.operation(i) != Operation.ENABLE) {
                continue;
            }
            boolean first = this.backend.accepted.remove(socket);
            if (!changes.failed(i) && first && this.backend.chance(Fault.REFUSED_REGISTRATION)) {
                // The real port armed it: disarmed again, and reported refused.
                RegistrationBatch disarm = new RegistrationBatch(1);
                disarm.disable(socket, changes.key(i));
                super.doProcess(disarm, null, 0);
                storeResult(changes, i, NativeError.NO_MEMORY, 12);
            }
            if (changes.failed(i)) {
                Registration known = this.byKey.get(changes.key(i));
                if (known != null) {
                    known.enabled = false;
                }
            }
        }
    }

    /** @return the count, this port's own wake-ups taken out of the batch */
    private int dropWakes(NotificationBatch notifications, int count) {
        int kept = 0;
        for (int i = 0; i < count; i++) {
            if (notifications.isPosted(i) && notifications.key(i) == WAKE_KEY) {
                continue;
            }
            if (kept != i) {
                if (notifications.isPosted(i)) {
                    storePosted(notifications, kept, notifications.key(i), notifications.payload(i));
                }
                else {
                    storeNotification(notifications, kept, notifications.key(i), notifications.events(i));
                }
            }
            kept++;
        }
        return kept;
    }

    private void recordChanges(RegistrationBatch changes) {
        if (changes == null) {
            return;
        }
        for (int i = 0; i < changes.size(); i++) {
            long socket = changes.socket(i);
            long key = changes.key(i);
            switch (changes.operation(i)) {
                case ENABLE -> {
                    Registration registration = this.backend.registrations.compute(socket, (handle, known) ->
                            (known != null && known.port == this && known.key == key) ? known : new Registration(this, socket, key));
                    registration.filter = changes.filter(i);
                    registration.triggerFlags = changes.triggerFlags(i);
                    registration.enabled = true;
                    Registration before = this.byKey.put(key, registration);
                    if (before != null && before != registration) {
                        this.owing.remove(before);
                    }
                }
                case DISABLE -> {
                    Registration registration = this.byKey.get(key);
                    if (registration != null) {
                        registration.enabled = false;
                    }
                }
                case REMOVE -> {
                    Registration registration = this.byKey.remove(key);
                    if (registration != null) {
                        this.owing.remove(registration);
                        this.backend.registrations.remove(registration.socket, registration);
                    }
                }
            }
        }
    }

    /** Keeps what the real notifications did to the registrations: a one-shot one disarmed, a removed one gone. */
    private int recordNotifications(NotificationBatch notifications, int count) {
        for (int i = 0; i < count; i++) {
            if (notifications.isPosted(i)) {
                continue;
            }
            Registration registration = this.byKey.get(notifications.key(i));
            if (registration == null) {
                continue;
            }
            if ((notifications.events(i) & Events.REMOVE) != 0) {
                this.byKey.remove(registration.key, registration);
                this.owing.remove(registration);
                this.backend.registrations.remove(registration.socket, registration);
            }
            else if (registration.isOneShot()) {
                registration.enabled = false;
            }
            if ((notifications.events(i) & Events.ERR) != 0) {
                registration.failed = true;
            }
            if ((notifications.events(i) & Events.HANGUP) != 0) {
                registration.hungUp = true;
            }
        }
        return count;
    }

    private int deliverStale(NotificationBatch notifications, int count) {
        long[] closed;
        while (count < notifications.capacity() && (closed = this.stale.poll()) != null) {
            if (indexOf(notifications, count, closed[0]) < 0) {
                storeNotification(notifications, count++, closed[0], (int) closed[1]);
            }
        }
        return count;
    }

    private int deliverOwed(NotificationBatch notifications, int count) {
        for (Registration registration : this.owing) {
            if (!registration.enabled) {
                continue;
            }
            int index = indexOf(notifications, count, registration.key);
            if (index < 0 && count == notifications.capacity()) {
                break;
            }
            this.owing.remove(registration);
            int events = registration.takeOwed();
            if (events == 0) {
                continue;
            }
            if (index >= 0) {
                storeNotification(notifications, index, registration.key, notifications.events(index) | events);
            }
            else {
                storeNotification(notifications, count++, registration.key, events);
            }
        }
        return count;
    }

    private int notifySpuriously(NotificationBatch notifications, int count) throws NativeIoException {
        if (count == notifications.capacity() || this.byKey.isEmpty() || !this.backend.chance(Fault.SPURIOUS)) {
            return count;
        }
        Registration[] known = this.byKey.values().toArray(new Registration[0]);
        if (known.length == 0) {
            return count;
        }
        Registration chosen = known[this.backend.draw(known.length)];
        int events = chosen.filter & (Events.IN | Events.OUT);
        // A one-shot registration only where one thread dequeues and a DISABLE takes back what was
        // queued (epoll's ready list): elsewhere a notification queued before the disarm could follow.
        if (!chosen.enabled || events == 0 || indexOf(notifications, count, chosen.key) >= 0
                || (chosen.isOneShot() && (this.shared || !"epoll".equals(this.backend.name())))) {
            return count;
        }
        if (chosen.isOneShot()) {
            // Disarmed first, as its own notification would have: one notification per arm.
            RegistrationBatch disarm = new RegistrationBatch(1);
            disarm.disable(chosen.socket, chosen.key);
            super.doProcess(disarm, null, 0);
            if (disarm.failed(0)) {
                return count;
            }
            chosen.enabled = false;
        }
        storeNotification(notifications, count, chosen.key, events);
        return count + 1;
    }

    private static int indexOf(NotificationBatch notifications, int count, long key) {
        for (int i = 0; i < count; i++) {
            if (!notifications.isPosted(i) && notifications.key(i) == key) {
                return i;
            }
        }
        return -1;
    }
}
