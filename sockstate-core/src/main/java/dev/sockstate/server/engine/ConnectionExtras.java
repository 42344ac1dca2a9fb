package dev.sockstate.server.engine;

import dev.sockstate.server.PeerCredentials;
import dev.sockstate.server.engine.turn.Handoff;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.jspecify.annotations.Nullable;

/**
 * What a TCP connection keeps that a plain idle connection never needs: what a handler
 * asked of it (attributes, its addresses), what its stages published (a TLS session, a PROXY
 * protocol header) and what a Unix domain socket told, why it failed, the replies it awaits and the tasks handed to its turn, the buffer its
 * writes gather in while its owner takes other threads' requests, and its worker's bundle of writes.
 * Made on first use by the connection, and made visible to other threads by the compare-and-set that stores it, so an idle connection of a plain listener
 * holds none (its heap per idle connection stays at most 184 bytes).
 * Fields read by other threads than the one that writes them are {@code volatile}, as they were on
 * the connection.
 */
final class ConnectionExtras {

    /** The handler's attributes, made on the first {@code attributes()}, from any thread, while holding this. */
    volatile @Nullable Map<String, Object> attributes;

    /** The peer's address, asked of the socket once (from any thread), or the client a PROXY protocol header names. */
    volatile @Nullable SocketAddress remoteAddress;

    /** The local address, asked of the socket once, from any thread. */
    volatile @Nullable SocketAddress localAddress;

    /**
     * Whether a notification carried the peer's hang-up, kept where a short read may end a turn (the
     * exclusive edge mode): the kernel keeps it in every later edge's events, so a turn no
     * notification started (a resume, a released hold, a refilled share) reads on past a short read,
     * as such an edge would have it read; the owner's.
     */
    boolean hangupNotified;

    /** The peer's credentials on a Unix domain socket, read as the connection opens by its owner. */
    volatile @Nullable PeerCredentials peerCredentials;

    /**
     * What the connection's stages published (a TLS session, a PROXY protocol header, ...), as pairs of
     * a type and its value, replaced whole on each publish: written by the owner, read from any thread.
     */
    private volatile Object @Nullable [] published;

    /** Why the connection ended, if it failed, the first reason only: what its client's requests fail with; any thread. */
    volatile @Nullable Throwable failure;

    /**
     * Whether the peer's bytes were refused, or a stage failed the connection after its last words:
     * nothing more is read or handed on (the rest of a read, a TLS record's plaintext, frames held
     * back), while what is owed or queued is still written; the owner's.
     */
    boolean inputRefused;

    /**
     * Where the writes other threads asked for gather while the owner takes several of them at once,
     * to leave in one send ({@link WritePath}); {@code null} otherwise. The owner's only.
     */
    @Nullable ByteBuffer corked;

    /**
     * The writes the connection's worker made from other sockets' turns since its last run, when it is
     * its port's only worker ({@link dev.sockstate.server.engine.turn.Worker#runsAlone}): handed over as
     * one request, where the first of them came ({@link WritePath}); {@code null} when none waits. That
     * worker's thread's alone.
     */
    @Nullable WriteBundle bundle;

    /** The connection's traffic shaping, made as it is first shaped; the owner's. */
    @Nullable Shaper shaper;

    /** The bytes a close that waits for the peer's FIN read and dropped so far; the owner's. */
    long finWaitDropped;

    /** The timer that ends a close's wait for the peer's FIN, cancelled when the connection finishes first; the owner's. */
    @Nullable ScheduledFuture<?> finWaitTimer;

    /** The bytes of a frame its framing refused that are still to be discarded as they arrive; the owner's. */
    long framingSkip;

    /** What the framing's decoder saved of the unfinished frame at hand ({@code FrameDecoder.Progress}); the owner's. */
    long framingProgress;

    /** The length the decoder announced the unfinished frame at hand reaches ({@code FrameDecoder.atLeast}); the owner's. */
    long framingLeast;

    /**
     * When the unfinished frame at hand began, in the framing's coarse clock, 0 for none; the owner's,
     * read by the timer's sweep once it saw the connection unowned.
     */
    int framingSince;

    /**
     * Time the unfinished frame at hand waited while the connection did not read (the handler paused
     * it, a stage held its input, its own queue was over its limit), in the framing's coarse clock:
     * added by the timer's sweep, which saw it so, and not counted against the frame timeout.
     */
    volatile int framingPaused;

    /** @param nanos a sweep's period the connection was seen not reading with an unfinished frame; the sweep's */
    void creditFramePause(long nanos) {
        this.framingPaused = (int) Math.min(Integer.MAX_VALUE / 4, this.framingPaused + Math.max(1, nanos >>> 20));
    }

    /** The bytes in {@link #bundle}: set by its worker only ({@link #BUNDLED_BYTES}), read by any thread with the connection's pending bytes. */
    volatile long bundledBytes;

    /**
     * Replies still to come to the requests an accepted connection's handler made on a worker for the
     * server's clients: a graceful stop's close waits for them; changed atomically from any thread.
     */
    private volatile int awaitedReplies;

    /**
     * The same count, for the requests made and ended on the connection's only worker
     * (the connection's {@code onItsOnlyWorker()}), which alone changes it ({@link #AWAITED_HERE}):
     * no atomic instruction a request; the replies awaited are the two added up.
     */
    private volatile int awaitedHere;

    /**
     * Tasks other threads handed to the connection's turn, newest first: the outcomes of requests its
     * handler made that came on another thread, so that their reply handlers run in the connection's
     * turn, never beside its handler calls; closed ({@link Handoff#close}) as the connection's last
     * calls begin, once it ended.
     */
    @SuppressWarnings("unused")
    private volatile @Nullable Handoff<Runnable> tasks;

    /**
     * Held through the connection's last calls (the outcomes that waited, then onClose) and by each
     * outcome that comes after them, so that none runs beside another: a lock of its own, which
     * nothing else takes (the extras' own monitor guards the attributes' making, which a handler of
     * another connection may ask for from its own last calls).
     */
    final Object lastCalls = new Object();

    /** {@link #tasks}' head. */
    private static final VarHandle TASKS;

    /** {@link #bundledBytes}, set with release semantics: no fence for a count that only its worker changes. */
    static final VarHandle BUNDLED_BYTES;

    /** {@link #awaitedHere}, set with release semantics by the only thread that changes it. */
    private static final VarHandle AWAITED_HERE;

    /** {@link #awaitedReplies}, changed atomically. */
    private static final AtomicIntegerFieldUpdater<ConnectionExtras> AWAITED_REPLIES = AtomicIntegerFieldUpdater
            .newUpdater(ConnectionExtras.class, "awaitedReplies");

    static {
        try {
            BUNDLED_BYTES = MethodHandles.lookup().findVarHandle(ConnectionExtras.class, "bundledBytes", long.class);
            AWAITED_HERE = MethodHandles.lookup().findVarHandle(ConnectionExtras.class, "awaitedHere", int.class);
            TASKS = MethodHandles.lookup().findVarHandle(ConnectionExtras.class, "tasks", Handoff.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** @param type the type the value is published as, replacing the one of that type before; the owner's */
    <T> void publish(Class<T> type, T value) {
        Object[] before = this.published;
        int length = (before != null) ? before.length : 0;
        for (int i = 0; i < length; i += 2) {
            if (before[i] == type) {
                Object[] after = before.clone();
                after[i + 1] = value;
                this.published = after;
                return;
            }
        }
        Object[] after = (before != null) ? Arrays.copyOf(before, length + 2) : new Object[2];
        after[length] = type;
        after[length + 1] = value;
        this.published = after;
    }

    /** @return the value published as the type, {@code null} when none was; any thread */
    <T> @Nullable T published(Class<T> type) {
        Object[] values = this.published;
        if (values != null) {
            for (int i = 0; i < values.length; i += 2) {
                if (values[i] == type) {
                    return type.cast(values[i + 1]);
                }
            }
        }
        return null;
    }

    /** @return whether replies to the requests the connection's handler made are still to come; any thread */
    boolean awaitsReplies() {
        return awaitedNow() > 0;
    }

    /**
     * A request the connection's handler made (on a worker) for a client of the server is sent: its
     * reply is awaited; any thread.
     * @param here whether the calling thread is the connection's only worker, which counts it without an atomic instruction
     */
    void replyAwaited(boolean here) {
        if (here) {
            AWAITED_HERE.setRelease(this, this.awaitedHere + 1);
        }
        else {
            AWAITED_REPLIES.incrementAndGet(this);
        }
    }

    /**
     * A request the connection's handler made ended, and whoever took the reply did what it does with it; any thread.
     * @param here whether the calling thread is the connection's only worker
     * @return the replies still awaited, as read now ({@link #awaitedNow()} reads them again)
     */
    int replyCame(boolean here) {
        if (!here) {
            return AWAITED_REPLIES.decrementAndGet(this) + this.awaitedHere;
        }
        int left = this.awaitedHere - 1;
        AWAITED_HERE.setRelease(this, left);
        return left + this.awaitedReplies;
    }

    /** @return the replies still awaited; any thread */
    int awaitedNow() {
        return this.awaitedHere + this.awaitedReplies;
    }

    /**
     * Hands a task to the connection's turn; any thread.
     * @return false once the connection's last calls began: the task was not taken
     */
    boolean handToTurn(Runnable task) {
        return Handoff.pushUnlessClosed(TASKS, this, task);
    }

    /** @return whether tasks handed to the connection's turn wait for it; any thread */
    boolean hasTasks() {
        return Handoff.waitsOpen(TASKS, this);
    }

    /** @return whether the connection's last calls began: no task is taken any more; any thread */
    boolean lastCallsBegan() {
        return Handoff.isClosed(TASKS, this);
    }

    /** Runs the tasks handed to the connection's turn, oldest first; the owner, in its turn. */
    void runTasks() {
        runAll(Handoff.takeAllOpen(TASKS, this));
    }

    /**
     * Runs the tasks that wait still, and refuses any from now on (they run where they come instead);
     * as the connection ends, under the lock of its last calls.
     */
    void runLastTasks() {
        runAll(Handoff.close(TASKS, this));
    }

    private static void runAll(Handoff<Runnable> node) {
        for (; node != null; node = node.next) {
            node.item.run();
        }
    }
}
