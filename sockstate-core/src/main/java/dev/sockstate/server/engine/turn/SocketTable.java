package dev.sockstate.server.engine.turn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * The served sockets of a server by completion key. A key is a slot index in its low 32 bits
 * and the slot's generation in the high bits; a slot gets a new generation each time it is reused,
 * so a late notification for a closed socket whose descriptor number (or slot) was reused finds
 * nothing instead of reaching the wrong socket. Keys are never negative.
 */
public final class SocketTable implements SocketTurn.Table {

    /** The slots, replaced by a larger copy (under the lock) as the table grows; read by any thread. */
    private volatile AtomicReferenceArray<@Nullable SocketTurn> slots;

    /** Each slot's generation; under the lock. */
    private int[] generations;

    /** The slots free for reuse; under the lock. */
    private int[] free;

    private int freeCount;

    private int used;

    private int size;

    /** @param capacity how many sockets the table holds at most */
    public SocketTable(int capacity) {
        this.slots = new AtomicReferenceArray<>(capacity);
        this.generations = new int[capacity];
        this.free = new int[capacity];
    }

    /**
     * Makes room for more sockets (a listener added to a running server): what the table holds stays
     * where it is, under the same keys.
     * @param capacity how many sockets the table holds at most from now on; a smaller one changes nothing
     */
    public synchronized void ensureCapacity(int capacity) {
        int current = this.generations.length;
        if (capacity <= current) {
            return;
        }
        AtomicReferenceArray<@Nullable SocketTurn> old = this.slots;
        AtomicReferenceArray<@Nullable SocketTurn> grown = new AtomicReferenceArray<>(capacity);
        for (int i = 0; i < current; i++) {
            grown.set(i, old.get(i));
        }
        this.generations = Arrays.copyOf(this.generations, capacity);
        this.free = Arrays.copyOf(this.free, capacity);
        // Only the lock's holders change slots, and getters find the same sockets in either array.
        this.slots = grown;
    }

    /** @return how many sockets the table holds at most */
    public synchronized int capacity() {
        return this.generations.length;
    }

    /**
     * Enters a socket and gives it its key.
     * @param socket the socket
     * @return false when the table is full
     */
    public synchronized boolean add(SocketTurn socket) {
        int slot;
        if (this.freeCount > 0) {
            slot = this.free[--this.freeCount];
        }
        else if (this.used < this.generations.length) {
            slot = this.used++;
        }
        else {
            return false;
        }
        int generation = (this.generations[slot] + 1) & 0x7fffffff;
        this.generations[slot] = generation;
        socket.key = ((long) generation << 32) | slot;
        this.slots.set(slot, socket);
        this.size++;
        return true;
    }

    /**
     * @param key a completion key
     * @return the socket it names, or {@code null} when that socket is gone
     */
    public @Nullable SocketTurn get(long key) {
        int slot = (int) key;
        AtomicReferenceArray<@Nullable SocketTurn> all = this.slots;
        if (slot < 0 || slot >= all.length()) {
            return null;
        }
        SocketTurn socket = all.get(slot);
        return (socket != null && socket.key == key) ? socket : null;
    }

    /** @param socket a socket to take out; its slot may then be reused */
    @Override
    public synchronized void remove(SocketTurn socket) {
        int slot = (int) socket.key;
        if (this.slots.compareAndSet(slot, socket, null)) {
            this.free[this.freeCount++] = slot;
            this.size--;
        }
    }

    /** @return how many sockets the table holds */
    public synchronized int size() {
        return this.size;
    }

    /** @return every socket now in the table */
    public List<SocketTurn> snapshot() {
        List<SocketTurn> all = new ArrayList<>();
        int limit;
        synchronized (this) {
            limit = this.used;
        }
        AtomicReferenceArray<@Nullable SocketTurn> slots = this.slots;
        for (int i = 0; i < limit; i++) {
            SocketTurn socket = slots.get(i);
            if (socket != null) {
                all.add(socket);
            }
        }
        return all;
    }
}
