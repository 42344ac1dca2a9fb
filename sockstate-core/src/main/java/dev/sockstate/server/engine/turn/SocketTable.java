package dev.sockstate.server.engine.turn;

import java.util.ArrayList;
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

    private final AtomicReferenceArray<@Nullable SocketTurn> slots;

    private final int[] generations;

    private final int[] free;

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
        if (slot < 0 || slot >= this.generations.length) {
            return null;
        }
        SocketTurn socket = this.slots.get(slot);
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
        for (int i = 0; i < limit; i++) {
            SocketTurn socket = this.slots.get(i);
            if (socket != null) {
                all.add(socket);
            }
        }
        return all;
    }
}
