package dev.sockstate.server.engine.turn;

import dev.sockstate.port.NotificationPort;
import org.jspecify.annotations.Nullable;

/**
 * A worker's thread, known as such by {@link Worker#onWorkerThread()}, and what it keeps for itself
 * alone (no line of memory shared with another core, no atomic instruction): the connection whose
 * handler it calls now ({@link Worker#handling(Object)}), the draws that start its rounds over a pool
 * ({@link Worker#nextTurn()}), and the clock and sums of the run at hand ({@link RunClock}).
 */
final class WorkerThread extends Thread implements Runner.Alone {

    final Worker worker;

    /**
     * What it handles now, as the engine marks it, when {@link #handles}; else what it handled last,
     * let go of before each dequeue.
     */
    private @Nullable Object handling;

    /** Whether it handles {@link #handling} now. */
    private boolean handles;

    /** The state of its draws of turns ({@link #drawTurn()}), never 0. */
    private int turns;

    /** The latest reading of the run at hand ({@link RunClock#startRun}); 0 outside runs. */
    long clock;

    /** Whether the run at hand times its handler calls together ({@link RunClock#sumsCall(Object)}). */
    boolean summing;

    /** Whose calls the outermost run at hand times together, {@code null} for none. */
    @Nullable Object runCalls;

    /** Whether the outermost run at hand does: what a run within it, timed call by call, gives back. */
    boolean outerSums;

    /** The handler calls the run at hand timed together so far. */
    int summed;

    /** Whose requests the outermost run at hand counts together ({@link RunClock#sumsRequest}). */
    @Nullable Object runRequests;

    /** The requests it counted together so far, and their time added up. */
    int requestsEnded;

    long requestNanos;

    WorkerThread(Worker worker, String name) {
        super(worker, name);
        this.worker = worker;
        // Seeded apart per thread; a seed of 0 would draw only 0.
        int seed = name.hashCode() * 0x9E3779B9 ^ (int) System.nanoTime();
        this.turns = (seed != 0) ? seed : 1;
    }

    /**
     * @return where its next round over a pool starts, zero or positive: drawn at random (xorshift32,
     * never 0 from a seed that is not), so that the rounds of one worker over several pools, or of
     * several workers over one, do not fall into step
     */
    @Override
    public boolean runsAlone(NotificationPort port) {
        return this.worker.isAloneOn(port);
    }

    @Override
    public void runLater(SocketTurn socket) {
        this.worker.runLater(socket);
    }

    int drawTurn() {
        int x = this.turns;
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        this.turns = x;
        return x & Integer.MAX_VALUE;
    }

    /**
     * @param what what it handles from now on, {@code null} for nothing
     * @return what it handled before
     */
    @Nullable Object handle(@Nullable Object what) {
        Object before = handled();
        if (what != null) {
            // Stored only when it changes (a proxy's frames come a connection's run at a time): a
            // reference stored into the long-lived thread most likely pays the collector's write
            // barrier; the flag beside it costs nothing.
            if (this.handling != what) {
                this.handling = what;
            }
            this.handles = true;
        }
        else {
            this.handles = false;
        }
        return before;
    }

    /** @return what it handles now, {@code null} for nothing */
    @Nullable Object handled() {
        return this.handles ? this.handling : null;
    }

    /** Before a dequeue, when it handles nothing: what the last calls handled is not held on to while it waits. */
    void letGoOfHandled() {
        this.handling = null;
    }
}
