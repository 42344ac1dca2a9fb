package dev.sockstate.server.engine.turn;

import java.lang.invoke.VarHandle;
import org.jspecify.annotations.Nullable;

/**
 * One item handed from any thread to a socket's owner: a node of a lock-free stack whose head is a
 * field of the receiving object, so that nothing is held while nothing waits (an idle connection
 * keeps no queue). Threads push; the owner takes everything at once, oldest first.
 * @param <T> the items' type
 */
public final class Handoff<T> {

    /** The head of a stack closed for good ({@link #close}): nothing is pushed on it any more. */
    private static final Handoff<Object> CLOSED = new Handoff<>(null);

    public final T item;

    /** The next item: older while on the stack, newer once taken. */
    public @Nullable Handoff<T> next;

    private Handoff(T item) {
        this.item = item;
    }

    /**
     * Hands an item over; any thread.
     * @param head the receiving object's head field, a {@code volatile Handoff}
     * @param receiver the receiving object
     * @param item the item
     */
    public static <T> void push(VarHandle head, Object receiver, T item) {
        pushNode(head, receiver, new Handoff<>(item));
    }

    /**
     * @param item an item handed over many times
     * @return a node for it, to hand over with {@link #pushNode} again each time the owner took it (and
     * read its {@link #next})
     */
    public static <T> Handoff<T> node(T item) {
        return new Handoff<>(item);
    }

    /**
     * Hands a node's item over, allocating nothing; any thread.
     * @param head the receiving object's head field, a {@code volatile Handoff}
     * @param receiver the receiving object
     * @param node a node made by {@link #node}, on no stack and in no taken list now
     */
    public static <T> void pushNode(VarHandle head, Object receiver, Handoff<T> node) {
        Handoff<T> current;
        do {
            current = top(head, receiver);
            node.next = current;
        }
        while (!head.compareAndSet(receiver, current, node));
    }

    /**
     * Hands an item over unless the stack was closed; any thread.
     * @param head the receiving object's head field, a {@code volatile Handoff}
     * @param receiver the receiving object
     * @param item the item
     * @return false when the stack is closed: the item was not handed over
     */
    public static <T> boolean pushUnlessClosed(VarHandle head, Object receiver, T item) {
        Handoff<T> node = new Handoff<>(item);
        Handoff<T> current;
        do {
            current = top(head, receiver);
            if (current == CLOSED) {
                return false;
            }
            node.next = current;
        }
        while (!head.compareAndSet(receiver, current, node));
        return true;
    }

    /**
     * Takes every item handed over so far on a stack that may be closed; the owner only.
     * @return the first (oldest) of them, linked to the newer ones through {@link #next}, or {@code null}
     * (none, or the stack is closed)
     */
    public static <T> @Nullable Handoff<T> takeAllOpen(VarHandle head, Object receiver) {
        Handoff<T> current;
        do {
            current = top(head, receiver);
            if (current == null || current == CLOSED) {
                return null;
            }
        }
        while (!head.compareAndSet(receiver, current, null));
        return oldestFirst(current);
    }

    /**
     * Closes the stack for good and takes what it held; the owner only.
     * @return the first (oldest) of the items it held, or {@code null} (none, or it was closed already)
     */
    @SuppressWarnings("unchecked")
    public static <T> @Nullable Handoff<T> close(VarHandle head, Object receiver) {
        Handoff<T> taken = (Handoff<T>) head.getAndSet(receiver, (Handoff<T>) (Handoff<?>) CLOSED);
        return (taken == CLOSED) ? null : oldestFirst(taken);
    }

    /** @return whether the stack was closed ({@link #close}); any thread */
    public static boolean isClosed(VarHandle head, Object receiver) {
        return head.getVolatile(receiver) == CLOSED;
    }

    /** @return whether an item waits on a stack that may be closed; any thread */
    public static boolean waitsOpen(VarHandle head, Object receiver) {
        Object top = head.getVolatile(receiver);
        return top != null && top != CLOSED;
    }

    /**
     * Takes every item handed over so far; the owner only.
     * @return the first (oldest) of them, linked to the newer ones through {@link #next}, or {@code null}
     */
    public static <T> @Nullable Handoff<T> takeAll(VarHandle head, Object receiver) {
        @SuppressWarnings("unchecked")
        Handoff<T> taken = (Handoff<T>) head.getAndSet(receiver, (Handoff<T>) null);
        return oldestFirst(taken);
    }

    /** @return the nodes taken, newest first, turned round: oldest first */
    private static <T> @Nullable Handoff<T> oldestFirst(@Nullable Handoff<T> taken) {
        Handoff<T> oldestFirst = null;
        while (taken != null) {
            Handoff<T> older = taken.next;
            taken.next = oldestFirst;
            oldestFirst = taken;
            taken = older;
        }
        return oldestFirst;
    }

    /** @return whether an item waits; any thread */
    public static boolean waits(VarHandle head, Object receiver) {
        return head.getVolatile(receiver) != null;
    }

    @SuppressWarnings("unchecked")
    private static <T> @Nullable Handoff<T> top(VarHandle head, Object receiver) {
        return (Handoff<T>) head.getVolatile(receiver);
    }
}
