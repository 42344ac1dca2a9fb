package dev.sockstate.port.nio;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * The open sockets by handle. A handle is a slot index in its low 32 bits and the slot's generation
 * above them, so a handle kept after its close names nothing, even once its slot serves another
 * socket. A lookup reads one element of an atomic array: no lock, no allocation, no boxing (a map
 * keyed by {@code Long} would box on every recv and send). Adding and removing take the table's lock.
 */
final class HandleTable {

    private static final int INITIAL_SLOTS = 64;

    /** Replaced, never shrunk, when full; a reader of a replaced array sees closed sockets at worst. */
    private volatile AtomicReferenceArray<NioSocket> slots = new AtomicReferenceArray<>(INITIAL_SLOTS);

    /** Each slot's current generation, 1 to {@code Integer.MAX_VALUE}; guarded by this. */
    private int[] generations = new int[INITIAL_SLOTS];

    /** Slots given back, reused last-in first-out; guarded by this. */
    private int[] free = new int[INITIAL_SLOTS];

    private int freeCount;

    /** Slots ever used: the next never-used slot; guarded by this. */
    private int used;

    /**
     * Gives the socket a handle and publishes it.
     * @param socket a socket without a handle
     * @return its handle, never negative
     */
    synchronized long add(NioSocket socket) {
        int slot;
        if (this.freeCount > 0) {
            slot = this.free[--this.freeCount];
        }
        else {
            if (this.used == this.generations.length) {
                grow();
            }
            slot = this.used++;
        }
        int generation = this.generations[slot] = nextGeneration(this.generations[slot]);
        long handle = ((long) generation << 32) | slot;
        socket.handle = handle;
        this.slots.set(slot, socket);
        return handle;
    }

    /**
     * @param handle a handle
     * @return its socket, or {@code null} when the handle is closed or was never given
     */
    @Nullable NioSocket get(long handle) {
        AtomicReferenceArray<NioSocket> current = this.slots;
        int slot = (int) handle;
        if (handle < 0 || slot < 0 || slot >= current.length()) {
            return null;
        }
        NioSocket socket = current.get(slot);
        return (socket != null && socket.handle == handle) ? socket : null;
    }

    /**
     * Takes a socket out; its handle names nothing afterwards.
     * @param handle a handle
     * @return the socket it named, or {@code null} when it named none
     */
    synchronized @Nullable NioSocket remove(long handle) {
        NioSocket socket = get(handle);
        if (socket == null) {
            return null;
        }
        int slot = (int) handle;
        this.slots.set(slot, null);
        if (this.freeCount == this.free.length) {
            this.free = Arrays.copyOf(this.free, this.free.length * 2);
        }
        this.free[this.freeCount++] = slot;
        return socket;
    }

    private void grow() {
        AtomicReferenceArray<NioSocket> old = this.slots;
        AtomicReferenceArray<NioSocket> larger = new AtomicReferenceArray<>(old.length() * 2);
        for (int i = 0; i < old.length(); i++) {
            larger.set(i, old.get(i));
        }
        this.generations = Arrays.copyOf(this.generations, larger.length());
        this.slots = larger;
    }

    private static int nextGeneration(int generation) {
        return (generation == Integer.MAX_VALUE) ? 1 : generation + 1;
    }
}
