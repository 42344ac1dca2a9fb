package dev.sockstate.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The registered sockets of a server by completion key. A key is a slot index in its low 32 bits
 * and the slot's generation in the high bits; a slot gets a new generation each time it is reused,
 * so a late notification for a closed socket whose descriptor number (or slot) was reused finds
 * nothing instead of reaching the wrong socket. Keys are never negative.
 */
final class RegistrationTable {

    private final AtomicReferenceArray<Registration> slots;

    private final int[] generations;

    private final int[] free;

    private int freeCount;

    private int used;

    private int size;

    RegistrationTable(int capacity) {
        this.slots = new AtomicReferenceArray<>(capacity);
        this.generations = new int[capacity];
        this.free = new int[capacity];
    }

    /**
     * Enters a registration and gives it its key.
     * @param registration the registration
     * @return false when the table is full
     */
    synchronized boolean add(Registration registration) {
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
        registration.key = ((long) generation << 32) | slot;
        this.slots.set(slot, registration);
        this.size++;
        return true;
    }

    /**
     * @param key a completion key
     * @return the registration it names, or {@code null} when that registration is gone
     */
    Registration get(long key) {
        int slot = (int) key;
        if (slot < 0 || slot >= this.generations.length) {
            return null;
        }
        Registration registration = this.slots.get(slot);
        return (registration != null && registration.key == key) ? registration : null;
    }

    /** @param registration a registration to take out; its slot may then be reused */
    synchronized void remove(Registration registration) {
        int slot = (int) registration.key;
        if (this.slots.compareAndSet(slot, registration, null)) {
            this.free[this.freeCount++] = slot;
            this.size--;
        }
    }

    /** @return how many registrations the table holds */
    synchronized int size() {
        return this.size;
    }

    /** @return every registration now in the table */
    List<Registration> snapshot() {
        List<Registration> all = new ArrayList<>();
        int limit;
        synchronized (this) {
            limit = this.used;
        }
        for (int i = 0; i < limit; i++) {
            Registration registration = this.slots.get(i);
            if (registration != null) {
                all.add(registration);
            }
        }
        return all;
    }
}
