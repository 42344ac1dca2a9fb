package dev.sockstate.port;

import org.jspecify.annotations.Nullable;

/**
 * A reusable batch of dequeued notifications: the {@code OVERLAPPED_ENTRY} array of one
 * {@link NotificationPort#process} call. Each entry is either a socket notification (a completion
 * key and its events) or a message posted with {@link NotificationPort#post(long, int)} (a key and
 * a payload).
 * <p>
 * A batch belongs to one thread at a time; it allocates nothing once created.
 */
public final class NotificationBatch {

    private final long[] keys;

    private final int[] events;

    private final int[] payloads;

    private final boolean[] posted;

    private int size;

    private @Nullable NativeBuffer nativeBuffer;

    /** @param capacity the most notifications one dequeue returns */
    public NotificationBatch(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("A notification batch holds at least one entry, not " + capacity);
        }
        this.keys = new long[capacity];
        this.events = new int[capacity];
        this.payloads = new int[capacity];
        this.posted = new boolean[capacity];
    }

    /** @return the number of entries dequeued by the last call */
    public int size() {
        return this.size;
    }

    /** @return the most entries one call dequeues */
    public int capacity() {
        return this.keys.length;
    }

    /** @param index entry index @return the completion key of a notification, or the key of a posted message */
    public long key(int index) {
        return this.keys[index];
    }

    /** @param index entry index @return the events of a notification ({@link Events}), zero for a posted message */
    public int events(int index) {
        return this.events[index];
    }

    /** @param index entry index @return whether the entry is a posted message rather than a socket notification */
    public boolean isPosted(int index) {
        return this.posted[index];
    }

    /** @param index entry index @return the payload of a posted message, zero for a notification */
    public int payload(int index) {
        return this.payloads[index];
    }

    /**
     * Stores a socket notification; backends reach it through {@link AbstractNotificationPort}.
     * @param index entry index
     * @param key completion key
     * @param eventMask delivered events
     */
    void setNotification(int index, long key, int eventMask) {
        this.keys[index] = key;
        this.events[index] = eventMask;
        this.payloads[index] = 0;
        this.posted[index] = false;
    }

    /**
     * Stores a posted message; backends reach it through {@link AbstractNotificationPort}.
     * @param index entry index
     * @param key the message's key
     * @param payload the message's payload
     */
    void setPosted(int index, long key, int payload) {
        this.keys[index] = key;
        this.events[index] = 0;
        this.payloads[index] = payload;
        this.posted[index] = true;
    }

    /** @param size the number of entries the backend stored */
    void setSize(int size) {
        this.size = size;
    }

    /** @return the native memory a backend dequeues into, or {@code null} until a backend sets it */
    @Nullable NativeBuffer nativeBuffer() {
        return this.nativeBuffer;
    }

    /** @param buffer the native memory a backend dequeues into, kept with the batch */
    void nativeBuffer(NativeBuffer buffer) {
        this.nativeBuffer = buffer;
    }
}
