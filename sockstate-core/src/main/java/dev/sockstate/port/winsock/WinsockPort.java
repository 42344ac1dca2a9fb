package dev.sockstate.port.winsock;

import dev.sockstate.port.AbstractNotificationPort;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.PortClosedException;
import dev.sockstate.port.RegistrationBatch;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * A notification port on an I/O completion port, fed by {@code ProcessSocketNotifications}. The
 * batch call is used as designed: the changes a worker collected are marshalled into a
 * {@code SOCK_NOTIFY_REGISTRATION} array and sent in the same call that dequeues its next
 * {@code OVERLAPPED_ENTRY} array; a dequeue alone is a {@code GetQueuedCompletionStatusEx}. Both
 * arrays are native memory kept with their batches, so a call allocates nothing. Events, operations
 * and trigger flags are Winsock's own values, passed through; REMOVE comes from Windows.
 * <p>
 * A posted message is a {@code PostQueuedCompletionStatus} packet with a reserved negative
 * completion key, which user keys never are, carrying the message's key as {@code lpOverlapped}
 * (a value Windows passes through untouched) and its payload as the byte count: each packet is one
 * message, so no queue is needed beside the port. Closing posts a packet with a second reserved key;
 * whoever dequeues it posts it again, so every waiter wakes.
 */
final class WinsockPort extends AbstractNotificationPort {

    /** Key of a message posted with {@link #post(long, int)}; user keys are never negative. */
    private static final long POSTED_KEY = Long.MIN_VALUE;

    /** Key of the packet that signals closing. */
    private static final long CLOSE_KEY = Long.MIN_VALUE + 1;

    private static final NotificationLayout LAYOUT = NotificationLayout.NATIVE;

    private final long handle;

    private final WinsockSockets sockets;

    /** The binding the port calls Windows through, its sockets' own. */
    private final WinsockCalls calls;

    private WinsockPort(long handle, WinsockSockets sockets) {
        this.handle = handle;
        this.sockets = sockets;
        this.calls = sockets.calls();
    }

    /**
     * @param sockets the sockets the port registers, whose binding it calls Windows through
     * @return a new port on a new completion port
     * @throws NativeIoException when the completion port could not be made
     */
    static WinsockPort open(WinsockSockets sockets) throws NativeIoException {
        WinsockCalls calls = sockets.calls();
        long handle = calls.CreateIoCompletionPort(WinsockNative.INVALID_HANDLE_VALUE, 0, 0, 0);
        if (handle == 0) {
            throw WsaError.last(calls, "CreateIoCompletionPort");
        }
        return new WinsockPort(handle, sockets);
    }

    @Override
    public String backendName() {
        return WinsockBackend.NAME;
    }

    @Override
    protected int doProcess(@Nullable RegistrationBatch changes, @Nullable NotificationBatch notifications, long timeoutMillis)
            throws NativeIoException {
        boolean changing = changes != null && !changes.isEmpty();
        if (!changing) {
            return (notifications == null) ? 0 : dequeueOnly(notifications, timeoutMillis);
        }
        NativeBuffer registrations = marshal(changes);
        if (notifications == null) {
            int result = this.calls.ProcessSocketNotifications(this.handle, changes.size(),
                    registrations.address(), 0, 0, 0, 0);
            check(result, WinsockNative.Notifications.FUNCTION);
            recordResults(changes, registrations.buffer());
            return 0;
        }
        NativeBuffer entries = entryBuffer(notifications);
        int capacity = notifications.capacity();
        int result = this.calls.ProcessSocketNotifications(this.handle, changes.size(),
                registrations.address(), timeout(timeoutMillis), capacity, entries.address(),
                entries.address() + countOffset(capacity));
        boolean received = check(result, WinsockNative.Notifications.FUNCTION);
        recordResults(changes, registrations.buffer());
        return received ? store(entries.buffer(), notifications) : emptied(notifications);
    }

    private int dequeueOnly(NotificationBatch notifications, long timeoutMillis) throws NativeIoException {
        NativeBuffer entries = entryBuffer(notifications);
        int capacity = notifications.capacity();
        if (this.calls.GetQueuedCompletionStatusEx(this.handle, entries.address(), capacity,
                entries.address() + countOffset(capacity), timeout(timeoutMillis), 0) == 0) {
            check(this.calls.lastError(), "GetQueuedCompletionStatusEx");
            return emptied(notifications);
        }
        return store(entries.buffer(), notifications);
    }

    /**
     * @param code the call's result
     * @param call its name, for the exception
     * @return true when entries were dequeued, false on a timeout
     * @throws PortClosedException when the port was closed while waiting
     * @throws NativeIoException for any other code: the call failed and changed nothing
     */
    private boolean check(int code, String call) throws NativeIoException {
        if (code == WsaError.ERROR_SUCCESS) {
            return true;
        }
        if (WsaError.isTimeout(code)) {
            return false;
        }
        if (code == WsaError.ERROR_ABANDONED_WAIT_0) {
            throw new PortClosedException(toString());
        }
        throw WsaError.exception(call, code);
    }

    private static int timeout(long timeoutMillis) {
        // INFINITE is 0xFFFFFFFF; longer finite waits are capped just below it.
        return (timeoutMillis == INFINITE) ? WinsockNative.INFINITE : (int) Math.min(timeoutMillis, 0xFFFF_FFFEL);
    }

    private NativeBuffer marshal(RegistrationBatch changes) {
        int size = changes.capacity() * LAYOUT.registrationSize;
        NativeBuffer registrations = nativeMemory(changes);
        if (registrations == null || registrations.capacity() < size) {
            registrations = this.sockets.allocate(size);
            nativeMemory(changes, registrations);
        }
        ByteBuffer buffer = registrations.buffer();
        for (int i = 0; i < changes.size(); i++) {
            int base = i * LAYOUT.registrationSize;
            LAYOUT.putPointer(buffer, base + LAYOUT.socketOffset, changes.socket(i));
            LAYOUT.putPointer(buffer, base + LAYOUT.completionKeyOffset, changes.key(i));
            buffer.putShort(base + LAYOUT.eventFilterOffset, (short) changes.filter(i));
            buffer.put(base + LAYOUT.operationOffset, (byte) changes.operation(i).code());
            buffer.put(base + LAYOUT.triggerFlagsOffset, (byte) changes.triggerFlags(i));
            buffer.putInt(base + LAYOUT.registrationResultOffset, 0);
        }
        return registrations;
    }

    private static void recordResults(RegistrationBatch changes, ByteBuffer registrations) {
        for (int i = 0; i < changes.size(); i++) {
            int code = registrations.getInt(i * LAYOUT.registrationSize + LAYOUT.registrationResultOffset);
            storeResult(changes, i, (code == 0) ? null : WsaError.toError(code), code);
        }
    }

    private int store(ByteBuffer entries, NotificationBatch notifications) {
        int received = entries.getInt(countOffset(notifications.capacity()));
        int stored = 0;
        boolean closing = false;
        for (int i = 0; i < received; i++) {
            int base = i * LAYOUT.entrySize;
            long key = LAYOUT.getPointer(entries, base + LAYOUT.entryCompletionKeyOffset);
            int transferred = entries.getInt(base + LAYOUT.entryBytesTransferredOffset);
            if (key >= 0) {
                storeNotification(notifications, stored++, key, transferred);
            }
            else if (key == POSTED_KEY) {
                storePosted(notifications, stored++, LAYOUT.getPointer(entries, base + LAYOUT.entryOverlappedOffset), transferred);
            }
            else if (key == CLOSE_KEY) {
                closing = true;
            }
        }
        storeSize(notifications, stored);
        if (closing) {
            wakeAllForClose();
        }
        return stored;
    }

    private static int emptied(NotificationBatch notifications) {
        storeSize(notifications, 0);
        return 0;
    }

    /** The entry count is written after the entries, in the same native buffer. */
    private static int countOffset(int capacity) {
        return capacity * LAYOUT.entrySize;
    }

    private NativeBuffer entryBuffer(NotificationBatch notifications) {
        NativeBuffer entries = nativeMemory(notifications);
        int size = countOffset(notifications.capacity()) + 8;
        if (entries == null || entries.capacity() < size) {
            entries = this.sockets.allocate(size);
            nativeMemory(notifications, entries);
        }
        return entries;
    }

    @Override
    protected void doPost(long key, int payload) throws NativeIoException {
        if (this.calls.PostQueuedCompletionStatus(this.handle, payload, POSTED_KEY, key) == 0) {
            throw WsaError.last(this.calls, "PostQueuedCompletionStatus");
        }
    }

    @Override
    protected void wakeAllForClose() {
        // Best effort: should posting fail, waiters still see the closed state at their next timeout.
        this.calls.PostQueuedCompletionStatus(this.handle, 0, CLOSE_KEY, 0);
    }

    @Override
    protected void release() {
        this.calls.CloseHandle(this.handle);
    }

    @Override
    public String toString() {
        return "winsock(port 0x" + Long.toHexString(this.handle) + ")";
    }
}
