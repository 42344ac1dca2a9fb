package dev.sockstate.port;

import org.jspecify.annotations.Nullable;

/**
 * A reusable batch of registration changes, the {@code SOCK_NOTIFY_REGISTRATION} array of one
 * {@link NotificationPort#process} call. After the call, every entry holds its own result: check
 * {@link #failed(int)} for each, as a failure of one change does not stop the others.
 * <p>
 * A batch belongs to one thread at a time; it allocates nothing once created.
 */
public final class RegistrationBatch {

    private final long[] sockets;

    private final long[] keys;

    private final int[] filters;

    private final Operation[] operations;

    private final int[] triggerFlags;

    private final @Nullable NativeError[] errors;

    private final int[] codes;

    private int size;

    private @Nullable NativeBuffer nativeBuffer;

    /** @param capacity the most changes one batch holds */
    public RegistrationBatch(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("A registration batch holds at least one change, not " + capacity);
        }
        this.sockets = new long[capacity];
        this.keys = new long[capacity];
        this.filters = new int[capacity];
        this.operations = new Operation[capacity];
        this.triggerFlags = new int[capacity];
        this.errors = new NativeError[capacity];
        this.codes = new int[capacity];
    }

    /**
     * Adds an ENABLE: registers the socket, or changes its filter and trigger and re-arms it.
     * @param socket the socket handle
     * @param key the completion key delivered with its notifications, zero or positive
     * @param filter the events wanted, {@link Events#IN}, {@link Events#OUT}, {@link Events#HANGUP}
     * @param trigger the trigger
     * @return the index of the entry
     */
    public int enable(long socket, long key, int filter, Trigger trigger) {
        return add(socket, key, Events.requireFilter(filter), Operation.ENABLE, trigger.flags());
    }

    /**
     * Adds an ENABLE with raw trigger flags, validated as {@link Trigger#of(int)} does.
     * @param socket the socket handle
     * @param key the completion key
     * @param filter the events wanted
     * @param triggerFlags exactly one of LEVEL/EDGE and one of ONESHOT/PERSISTENT
     * @return the index of the entry
     */
    public int enable(long socket, long key, int filter, int triggerFlags) {
        return add(socket, key, Events.requireFilter(filter), Operation.ENABLE, Trigger.of(triggerFlags).flags());
    }

    /**
     * Adds a DISABLE: the registration stays, notifications stop.
     * @param socket the socket handle
     * @param key its completion key
     * @return the index of the entry
     */
    public int disable(long socket, long key) {
        return add(socket, key, 0, Operation.DISABLE, 0);
    }

    /**
     * Adds a REMOVE: one REMOVE notification with {@code key} follows, and nothing after it.
     * @param socket the socket handle
     * @param key its completion key
     * @return the index of the entry
     */
    public int remove(long socket, long key) {
        return add(socket, key, 0, Operation.REMOVE, 0);
    }

    private int add(long socket, long key, int filter, Operation operation, int flags) {
        if (key < 0) {
            throw new IllegalArgumentException("Completion key " + key + " is negative; negative keys are reserved for backends");
        }
        int index = this.size;
        if (index == this.sockets.length) {
            throw new IllegalStateException("The registration batch is full (" + index + " changes); process it first");
        }
        this.sockets[index] = socket;
        this.keys[index] = key;
        this.filters[index] = filter;
        this.operations[index] = operation;
        this.triggerFlags[index] = flags;
        this.errors[index] = null;
        this.codes[index] = 0;
        this.size = index + 1;
        return index;
    }

    /** Empties the batch for reuse. */
    public void clear() {
        this.size = 0;
    }

    /** @return the number of changes */
    public int size() {
        return this.size;
    }

    /** @return the most changes the batch holds */
    public int capacity() {
        return this.sockets.length;
    }

    /** @return whether the batch holds no change */
    public boolean isEmpty() {
        return this.size == 0;
    }

    /** @param index entry index @return its socket handle */
    public long socket(int index) {
        return this.sockets[index];
    }

    /** @param index entry index @return its completion key */
    public long key(int index) {
        return this.keys[index];
    }

    /** @param index entry index @return its event filter */
    public int filter(int index) {
        return this.filters[index];
    }

    /** @param index entry index @return its operation */
    public Operation operation(int index) {
        return this.operations[index];
    }

    /** @param index entry index @return its trigger flags (zero for DISABLE and REMOVE) */
    public int triggerFlags(int index) {
        return this.triggerFlags[index];
    }

    /** @param index entry index @return whether the change failed */
    public boolean failed(int index) {
        return this.errors[index] != null;
    }

    /** @param index entry index @return why the change failed, or {@code null} when it succeeded */
    public @Nullable NativeError error(int index) {
        return this.errors[index];
    }

    /** @param index entry index @return the backend's own result code, zero on success */
    public int resultCode(int index) {
        return this.codes[index];
    }

    /**
     * Records the result of one change; backends reach it through {@link AbstractNotificationPort}.
     * @param index entry index
     * @param error the failure, or {@code null} on success
     * @param code the backend's code, zero on success
     */
    void setResult(int index, @Nullable NativeError error, int code) {
        this.errors[index] = error;
        this.codes[index] = code;
    }

    /**
     * Describes a failed change as an exception naming the socket, the key and the operation.
     * @param index entry index of a failed change
     * @param call the native call that reported it
     * @return the exception
     */
    public NativeIoException failure(int index, String call) {
        return new NativeIoException(call, this.errors[index], this.codes[index],
                this.operations[index] + " of socket " + this.sockets[index] + " (key " + this.keys[index] + ") was refused");
    }

    /**
     * The native memory a backend marshals this batch into, kept with the batch so that no call
     * allocates; {@code null} until a backend sets it.
     * @return the buffer, or {@code null}
     */
    @Nullable NativeBuffer nativeBuffer() {
        return this.nativeBuffer;
    }

    /** @param buffer the native memory a backend marshals this batch into */
    void nativeBuffer(NativeBuffer buffer) {
        this.nativeBuffer = buffer;
    }
}
