package dev.sockstate.server.engine;

import java.lang.ref.WeakReference;
import java.util.function.Supplier;

/**
 * One object per live thread, made on the thread's first use and handed on to a later thread once
 * its thread ended: with a thread per handler call (a virtual-thread executor), what the runtime
 * keeps per thread (native buffers, a batch of one change) is reused from ended threads instead of
 * made again for every call. At most {@code limit} objects are kept for reuse; a thread beyond them
 * gets one of its own, dropped with it.
 *
 * @param <T> what each thread gets
 */
final class PerThread<T> {

    private final Supplier<T> maker;

    private final ThreadLocal<Slot<T>> current = new ThreadLocal<>();

    private final Slot<?>[] slots;

    private int count;

    /**
     * @param maker makes a thread's object
     * @param limit how many objects are kept for reuse
     */
    PerThread(Supplier<T> maker, int limit) {
        this.maker = maker;
        this.slots = new Slot<?>[limit];
    }

    /** @return the calling thread's object */
    T get() {
        Slot<T> slot = this.current.get();
        if (slot == null) {
            slot = claim(Thread.currentThread());
            this.current.set(slot);
        }
        return slot.value;
    }

    @SuppressWarnings("unchecked")
    private synchronized Slot<T> claim(Thread thread) {
        for (int i = 0; i < this.count; i++) {
            Slot<T> slot = (Slot<T>) this.slots[i];
            if (slot.ended()) {
                slot.owner = new WeakReference<>(thread);
                return slot;
            }
        }
        Slot<T> slot = new Slot<>(this.maker.get(), thread);
        if (this.count < this.slots.length) {
            this.slots[this.count++] = slot;
        }
        return slot;
    }

    /** An object and the thread it belongs to. */
    private static final class Slot<T> {

        final T value;

        /** Written under the pool's lock, read there too. */
        WeakReference<Thread> owner;

        Slot(T value, Thread owner) {
            this.value = value;
            this.owner = new WeakReference<>(owner);
        }

        boolean ended() {
            Thread thread = this.owner.get();
            return thread == null || !thread.isAlive();
        }
    }
}
