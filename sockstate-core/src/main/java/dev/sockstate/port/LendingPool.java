package dev.sockstate.port;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Objects that hold native memory, lent for the length of one call and given back after it, so that
 * their number follows the calls in flight at once, not the threads that ever made one: a thread per
 * handler call (a virtual-thread executor) allocates nothing per call. At most {@code limit} objects
 * are made; {@link #borrow()} answers {@code null} while all of them are lent, and the caller decides
 * what to do without one. For backends and the runtime; lending and giving back allocate nothing.
 *
 * @param <T> what is lent
 */
public final class LendingPool<T> {

    private final Supplier<T> maker;

    /** The objects not lent; a null slot is empty. */
    private final AtomicReferenceArray<@Nullable T> idle;

    private final AtomicInteger made = new AtomicInteger();

    /**
     * @param maker makes an object on a borrow that finds none idle
     * @param limit the most objects made
     */
    public LendingPool(Supplier<T> maker, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("A pool lends at least one object, not " + limit);
        }
        this.maker = maker;
        this.idle = new AtomicReferenceArray<>(limit);
    }

    /** @return an idle object, a new one while fewer than the limit were made, or {@code null} */
    public @Nullable T borrow() {
        int slots = this.idle.length();
        int start = startSlot(slots);
        for (int i = 0; i < slots; i++) {
            int slot = (start + i) % slots;
            if (this.idle.get(slot) != null) {
                T found = this.idle.getAndSet(slot, null);
                if (found != null) {
                    return found;
                }
            }
        }
        int count;
        do {
            count = this.made.get();
            if (count == slots) {
                return null;
            }
        }
        while (!this.made.compareAndSet(count, count + 1));
        try {
            return this.maker.get();
        }
        catch (RuntimeException | Error ex) {
            // Not made (out of direct memory, say): its place is free for a later borrow.
            this.made.decrementAndGet();
            throw ex;
        }
    }

    /**
     * @param lent an object {@link #borrow()} returned that is not given back (another thread may still
     * use it): its place is free for a later borrow to make another
     */
    public void discard(T lent) {
        this.made.decrementAndGet();
    }

    /** @param lent an object {@link #borrow()} returned, which the caller no longer uses */
    public void giveBack(T lent) {
        int slots = this.idle.length();
        int start = startSlot(slots);
        // As many slots as objects made: one is empty for each object lent. (Only an object not
        // borrowed from here can find none.)
        for (int i = 0; i < 4 * slots; i++) {
            int slot = (start + i) % slots;
            if (this.idle.get(slot) == null && this.idle.compareAndSet(slot, null, lent)) {
                return;
            }
        }
        // Dropped: one fewer made, so that a later borrow may make another.
        this.made.decrementAndGet();
    }

    /** @return the objects made and not dropped since: lent now or idle; at most the pool's limit */
    public int made() {
        return this.made.get();
    }

    /** Each thread starts at its own slot, so threads that borrow often do not contend. */
    private static int startSlot(int slots) {
        return (System.identityHashCode(Thread.currentThread()) & Integer.MAX_VALUE) % slots;
    }
}
