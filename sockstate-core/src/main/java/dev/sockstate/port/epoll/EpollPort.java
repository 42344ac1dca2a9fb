package dev.sockstate.port.epoll;

import dev.sockstate.port.AbstractNotificationPort;
import dev.sockstate.port.Events;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.Operation;
import dev.sockstate.port.RegistrationBatch;
import dev.sockstate.port.Trigger;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jspecify.annotations.Nullable;

/**
 * A notification port on an epoll instance. ENABLE is {@code EPOLL_CTL_MOD} (or ADD for a socket
 * not yet registered), DISABLE a MOD with no events, REMOVE a DEL followed by a REMOVE notification
 * that epoll does not have and this port synthesises: into the batch of the very call that applied
 * the removal when that call dequeues and has room (nothing else can be queued for the socket once
 * the DEL returned), else through the queue; a call that stores some returns them without waiting
 * on epoll. Posted messages and queued REMOVE notifications wait
 * in a queue whose length a semaphore {@code eventfd} counts, so each is dequeued by exactly one
 * thread; a second eventfd, readable for ever once the port closes, wakes every waiter.
 */
final class EpollPort extends AbstractNotificationPort {

    /** Key of the eventfd that counts queued messages; user keys are never negative. */
    private static final long QUEUE_KEY = Long.MIN_VALUE;

    /** Key of the eventfd that signals closing. */
    private static final long CLOSE_KEY = Long.MIN_VALUE + 1;

    private final int epollFd;

    private final int queueFd;

    private final int closeFd;

    private final Queue<QueuedEntry> queue = new ConcurrentLinkedQueue<>();

    /** 8 bytes holding 1, written to an eventfd to count one entry; never changed. */
    private final NativeBuffer one;

    /** 8 bytes an eventfd read lands in; its value is never used, so threads may share it. */
    private final NativeBuffer sink;

    private final EpollSockets sockets;

    /** The binding the port calls libc through, its sockets' own. */
    private final EpollCalls calls;

    /** Sockets believed registered, indexed by descriptor: a hint that picks ADD or MOD first. */
    private volatile byte[] registeredHint = new byte[1024];

    private EpollPort(int epollFd, int queueFd, int closeFd, EpollSockets sockets) {
        this.epollFd = epollFd;
        this.queueFd = queueFd;
        this.closeFd = closeFd;
        this.one = sockets.allocate(8);
        this.one.buffer().putLong(0, 1L);
        this.sink = sockets.allocate(8);
        this.sockets = sockets;
        this.calls = sockets.calls();
    }

    /**
     * Loads the classes that only rare paths use (errors, REMOVE), so that a process out of
     * descriptors, which cannot open a class file, still runs them.
     */
    static void loadRarelyUsedClasses(EpollCalls calls) {
        new QueuedEntry(0, 0, true).hashCode();
        Errno.exception(calls, "epoll_wait", Errno.EAGAIN).error().ordinal();
    }

    /**
     * @param sockets the sockets the port registers, whose binding it calls libc through
     * @return a new port with its epoll instance and its two eventfds
     * @throws NativeIoException when one could not be made
     */
    static EpollPort open(EpollSockets sockets) throws NativeIoException {
        EpollCalls calls = sockets.calls();
        int epollFd = calls.epoll_create1(LinuxAbi.EPOLL_CLOEXEC);
        if (epollFd < 0) {
            throw Errno.last(calls, "epoll_create1");
        }
        int queueFd = -1;
        int closeFd = -1;
        try {
            queueFd = newEventFd(calls, LinuxAbi.EFD_SEMAPHORE);
            closeFd = newEventFd(calls, 0);
            NativeBuffer event = sockets.allocate(LinuxAbi.EPOLL_EVENT_SIZE);
            control(calls, epollFd, queueFd, QUEUE_KEY, event);
            control(calls, epollFd, closeFd, CLOSE_KEY, event);
            return new EpollPort(epollFd, queueFd, closeFd, sockets);
        }
        catch (NativeIoException | RuntimeException ex) {
            closeQuietly(calls, closeFd);
            closeQuietly(calls, queueFd);
            closeQuietly(calls, epollFd);
            throw ex;
        }
    }

    private static int newEventFd(EpollCalls calls, int flags) throws NativeIoException {
        int fd = calls.eventfd(0, flags | LinuxAbi.EFD_NONBLOCK | LinuxAbi.EFD_CLOEXEC);
        if (fd < 0) {
            throw Errno.last(calls, "eventfd");
        }
        return fd;
    }

    /** Adds one of the port's own eventfds for IN, level-triggered, under its reserved key. */
    private static void control(EpollCalls calls, int epollFd, int fd, long key, NativeBuffer event)
            throws NativeIoException {
        ByteBuffer buffer = event.buffer();
        buffer.putInt(0, LinuxAbi.EPOLLIN);
        buffer.putLong(LinuxAbi.EPOLL_EVENT_DATA_OFFSET, key);
        if (calls.epoll_ctl(epollFd, LinuxAbi.EPOLL_CTL_ADD, fd, event.address()) != 0) {
            throw Errno.last(calls, "epoll_ctl");
        }
    }

    @Override
    public String backendName() {
        return EpollBackend.NAME;
    }

    @Override
    protected int doProcess(@Nullable RegistrationBatch changes, @Nullable NotificationBatch notifications, long timeoutMillis)
            throws NativeIoException {
        // REMOVE notifications of changes applied in this call go straight into this call's batch,
        // as far as it has room: no queue entry, no eventfd write and read, no second wake-up. A call
        // that has some returns them without polling (a closing connection's DEL would otherwise cost
        // an epoll_wait of its own); what else is ready comes with the next call.
        int removed = (changes != null && !changes.isEmpty()) ? applyChanges(changes, notifications) : 0;
        if (notifications == null) {
            return 0;
        }
        if (removed > 0) {
            storeSize(notifications, removed);
            return removed;
        }
        NativeBuffer events = eventBuffer(notifications);
        long deadline = 0;
        int timeout = (timeoutMillis == INFINITE) ? -1 : (int) Math.min(timeoutMillis, Integer.MAX_VALUE);
        while (true) {
            int ready = this.calls.epoll_wait(this.epollFd, events.address(), notifications.capacity(), timeout);
            if (ready < 0) {
                int errno = this.calls.errno();
                if (errno != Errno.EINTR) {
                    if (changes != null && !changes.isEmpty()) {
                        // The changes were applied, each with its result: the call is no failure. The
                        // wait's error comes back on the next call that only waits.
                        storeSize(notifications, 0);
                        return 0;
                    }
                    throw Errno.exception(this.calls, "epoll_wait", errno);
                }
                ready = 0;
            }
            int stored = store(events.buffer(), ready, notifications);
            if (stored > 0 || timeout == 0 || !isOpen()) {
                return stored;
            }
            // Interrupted, or every ready entry was a queue count another thread took first: wait on.
            if (timeout > 0) {
                long now = System.nanoTime();
                if (deadline == 0) {
                    deadline = now + timeout * 1_000_000L;
                }
                timeout = (int) ((deadline - now) / 1_000_000L);
                if (timeout <= 0) {
                    return 0;
                }
            }
        }
    }

    private int store(ByteBuffer events, int ready, NotificationBatch notifications) {
        int stored = 0;
        for (int i = 0; i < ready; i++) {
            int offset = i * LinuxAbi.EPOLL_EVENT_SIZE;
            long key = events.getLong(offset + LinuxAbi.EPOLL_EVENT_DATA_OFFSET);
            if (key >= 0) {
                storeNotification(notifications, stored++, key, toEvents(events.getInt(offset)));
            }
            else if (key == QUEUE_KEY && this.calls.read(this.queueFd, this.sink.address(), 8) == 8) {
                QueuedEntry entry = this.queue.poll();
                if (entry.remove) {
                    storeNotification(notifications, stored++, entry.key, Events.REMOVE);
                }
                else {
                    storePosted(notifications, stored++, entry.key, entry.payload);
                }
            }
        }
        storeSize(notifications, stored);
        return stored;
    }

    private static int toEvents(int epollEvents) {
        int events = 0;
        if ((epollEvents & LinuxAbi.EPOLLIN) != 0) {
            events |= Events.IN;
        }
        if ((epollEvents & LinuxAbi.EPOLLOUT) != 0) {
            events |= Events.OUT;
        }
        if ((epollEvents & (LinuxAbi.EPOLLRDHUP | LinuxAbi.EPOLLHUP)) != 0) {
            events |= Events.HANGUP;
        }
        if ((epollEvents & LinuxAbi.EPOLLERR) != 0) {
            events |= Events.ERR;
        }
        return events;
    }

    private static int toEpoll(int filter, int triggerFlags) {
        int events = 0;
        if ((filter & Events.IN) != 0) {
            events |= LinuxAbi.EPOLLIN;
        }
        if ((filter & Events.OUT) != 0) {
            events |= LinuxAbi.EPOLLOUT;
        }
        if ((filter & Events.HANGUP) != 0) {
            events |= LinuxAbi.EPOLLRDHUP;
        }
        if ((triggerFlags & Trigger.ONESHOT) != 0) {
            events |= LinuxAbi.EPOLLONESHOT;
        }
        if ((triggerFlags & Trigger.EDGE) != 0) {
            events |= LinuxAbi.EPOLLET;
        }
        return events;
    }

    /**
     * Applies the changes in order, recording each one's result in the batch.
     * @param changes the changes
     * @param notifications the batch of the calling dequeue, which takes the REMOVE notifications
     * of successful removals while it has room, or {@code null} to queue them all
     * @return how many REMOVE notifications were stored at the start of {@code notifications}
     */
    private int applyChanges(RegistrationBatch changes, @Nullable NotificationBatch notifications) throws NativeIoException {
        int removed = 0;
        NativeBuffer event = nativeMemory(changes);
        if (event == null) {
            event = this.sockets.allocate(LinuxAbi.EPOLL_EVENT_SIZE);
            nativeMemory(changes, event);
        }
        ByteBuffer buffer = event.buffer();
        for (int i = 0; i < changes.size(); i++) {
            long socket = changes.socket(i);
            long key = changes.key(i);
            int fd = (int) socket;
            if (fd != socket || fd < 0) {
                storeResult(changes, i, NativeError.BAD_DESCRIPTOR, Errno.EBADF);
                continue;
            }
            Operation operation = changes.operation(i);
            int result;
            if (operation == Operation.REMOVE) {
                result = this.calls.epoll_ctl(this.epollFd, LinuxAbi.EPOLL_CTL_DEL, fd, 0);
                if (result == 0) {
                    hint(fd, false);
                    if (notifications != null && removed < notifications.capacity()) {
                        storeNotification(notifications, removed++, key, Events.REMOVE);
                    }
                    else {
                        enqueue(new QueuedEntry(key, 0, true));
                    }
                }
            }
            else {
                // DISABLE: no events, one-shot, so that even the ERR/HUP epoll always reports fire at most once.
                int epollEvents = (operation == Operation.ENABLE)
                        ? toEpoll(changes.filter(i), changes.triggerFlags(i)) : LinuxAbi.EPOLLONESHOT;
                buffer.putInt(0, epollEvents);
                buffer.putLong(LinuxAbi.EPOLL_EVENT_DATA_OFFSET, key);
                result = enable(fd, event.address(), operation == Operation.ENABLE);
            }
            if (result == 0) {
                storeResult(changes, i, null, 0);
            }
            else {
                int errno = this.calls.errno();
                storeResult(changes, i, Errno.toError(errno), errno);
            }
        }
        return removed;
    }

    /** MOD for a socket believed registered, ADD otherwise, and the other when the guess was wrong. */
    private int enable(int fd, long event, boolean mayAdd) {
        int first = (!mayAdd || isHinted(fd)) ? LinuxAbi.EPOLL_CTL_MOD : LinuxAbi.EPOLL_CTL_ADD;
        int result = this.calls.epoll_ctl(this.epollFd, first, fd, event);
        if (result != 0 && mayAdd) {
            int errno = this.calls.errno();
            if (errno == Errno.ENOENT && first == LinuxAbi.EPOLL_CTL_MOD) {
                result = this.calls.epoll_ctl(this.epollFd, LinuxAbi.EPOLL_CTL_ADD, fd, event);
            }
            else if (errno == Errno.EEXIST && first == LinuxAbi.EPOLL_CTL_ADD) {
                result = this.calls.epoll_ctl(this.epollFd, LinuxAbi.EPOLL_CTL_MOD, fd, event);
            }
        }
        if (result == 0) {
            hint(fd, true);
        }
        return result;
    }

    private boolean isHinted(int fd) {
        byte[] hints = this.registeredHint;
        return fd < hints.length && hints[fd] != 0;
    }

    private void hint(int fd, boolean registered) {
        byte[] hints = this.registeredHint;
        if (fd >= hints.length) {
            if (!registered) {
                return;
            }
            hints = Arrays.copyOf(hints, Math.max(fd + 1, hints.length * 2));
            this.registeredHint = hints;
        }
        hints[fd] = (byte) (registered ? 1 : 0);
    }

    private NativeBuffer eventBuffer(NotificationBatch notifications) {
        NativeBuffer events = nativeMemory(notifications);
        int size = notifications.capacity() * LinuxAbi.EPOLL_EVENT_SIZE;
        if (events == null || events.capacity() < size) {
            events = this.sockets.allocate(size);
            nativeMemory(notifications, events);
        }
        return events;
    }

    @Override
    protected void doPost(long key, int payload) throws NativeIoException {
        enqueue(new QueuedEntry(key, payload, false));
    }

    private void enqueue(QueuedEntry entry) throws NativeIoException {
        this.queue.add(entry);
        if (this.calls.write(this.queueFd, this.one.address(), 8) != 8) {
            throw Errno.last(this.calls, "write(eventfd)");
        }
    }

    @Override
    protected void wakeAllForClose() {
        this.calls.write(this.closeFd, this.one.address(), 8);
    }

    @Override
    protected void release() {
        closeQuietly(this.calls, this.epollFd);
        closeQuietly(this.calls, this.queueFd);
        closeQuietly(this.calls, this.closeFd);
        this.queue.clear();
    }

    private static void closeQuietly(EpollCalls calls, int fd) {
        if (fd >= 0) {
            calls.close(fd);
        }
    }

    @Override
    public String toString() {
        return "epoll(fd " + this.epollFd + ")";
    }

    /** A posted message, or a REMOVE notification that epoll does not produce itself. */
    private record QueuedEntry(long key, int payload, boolean remove) {
    }
}
