package dev.sockstate.server.engine.turn;

import org.jspecify.annotations.Nullable;


/**
 * The clock of a run on a worker's thread: the handler calls for the frames of one read. The clock is
 * read once as the run starts; what the run stamps (a request sent, a reply come) takes its latest
 * reading ({@link #clock()}). A run whose observer keeps only sums times its calls together (no
 * reading of their own, one count and one time for the read: {@link #sumsCall(Object)}); any other times
 * each call from the end of the one before ({@link #lap()}). Either way a read costs one reading, and
 * a call one at most, instead of two a call and two a request. Off the workers, each reading is
 * {@link System#nanoTime()} read then.
 */
public final class RunClock {

    private RunClock() {
    }

    /**
     * Starts a run. A run within another (an embedded connection fed by a handler, say) times its calls
     * one by one, and the time of the call it is within covers them.
     * @param summing whose calls are timed together (its observer keeps sums only); {@code null} to time each
     * @param requests whose requests the run's replies end are counted together ({@link #sumsRequest}); {@code null} for none
     * @return the clock of the run this one is within, to give {@link #endRun(long)}; 0 off the workers or outside runs
     */
    public static long startRun(@Nullable Object summing, @Nullable Object requests) {
        if (Thread.currentThread() instanceof WorkerThread thread) {
            long outer = thread.clock;
            thread.clock = System.nanoTime();
            if (outer == 0) {
                thread.runCalls = summing;
                thread.outerSums = summing != null;
                thread.summing = summing != null;
                thread.summed = 0;
                thread.runRequests = requests;
                thread.requestsEnded = 0;
                thread.requestNanos = 0;
            }
            else {
                thread.summing = false;
            }
            return outer;
        }
        return 0;
    }

    /** @return the handler calls the outermost run timed together, to read before {@link #endRun(long)}; 0 when it times each */
    public static int summedCalls() {
        return (Thread.currentThread() instanceof WorkerThread thread && thread.summing) ? thread.summed : 0;
    }

    /**
     * @param requests whose request ended, as given to {@link #startRun}
     * @param nanos its time
     * @return whether the outermost run at hand counts it with the others of the same owner; if not, the caller reports it
     */
    public static boolean sumsRequest(Object requests, long nanos) {
        if (Thread.currentThread() instanceof WorkerThread thread && thread.clock != 0 && thread.runRequests == requests) {
            thread.requestsEnded++;
            thread.requestNanos += nanos;
            return true;
        }
        return false;
    }

    /**
     * @param outer what {@link #startRun} returned for the run about to end
     * @return the requests it counted together, when it is the outermost (a run within it reports none), to read before {@link #endRun(long)}
     */
    public static int summedRequests(long outer) {
        return (outer == 0 && Thread.currentThread() instanceof WorkerThread thread) ? thread.requestsEnded : 0;
    }

    /**
     * @param outer what {@link #startRun} returned for the run about to end
     * @return their time added up, as {@link #summedRequests(long)}
     */
    public static long summedRequestNanos(long outer) {
        return (outer == 0 && Thread.currentThread() instanceof WorkerThread thread) ? thread.requestNanos : 0;
    }

    /**
     * Ends a run: the one it was within, if any, goes on.
     * @param outer what {@link #startRun(Object, Object)} returned
     * @return how long the calls it timed together took, from its start (or its last failure) to now; 0 when it timed none
     */
    public static long endRun(long outer) {
        if (Thread.currentThread() instanceof WorkerThread thread) {
            long nanos = (thread.summing && thread.summed > 0) ? System.nanoTime() - thread.clock : 0;
            thread.clock = outer;
            thread.summing = (outer != 0) && thread.outerSums;
            if (outer == 0) {
                thread.runRequests = null;
                thread.requestsEnded = 0;
                thread.requestNanos = 0;
            }
            return nanos;
        }
        return 0;
    }

    /**
     * @param calls whose call this is: only the calls of the run's own are timed together
     * @return whether the calling thread's run times this handler call with the others: it is counted, and reads no clock
     */
    public static boolean sumsCall(Object calls) {
        if (Thread.currentThread() instanceof WorkerThread thread && thread.summing && thread.runCalls == calls) {
            thread.summed++;
            return true;
        }
        return false;
    }

    /**
     * A call timed with the others failed: it is taken out of the sum, with the time of the run so far
     * (its own, and that of the calls before it in the read), and the sum goes on from now.
     * @return that time
     */
    public static long failedInSum() {
        long now = System.nanoTime();
        if (Thread.currentThread() instanceof WorkerThread thread && thread.summing) {
            long nanos = now - thread.clock;
            thread.summed--;
            thread.clock = now;
            return nanos;
        }
        return 0;
    }

    /**
     * @return within a run on a worker's thread, its latest reading (its start, or the end of its last
     * call timed); else {@link System#nanoTime()} read now
     */
    public static long clock() {
        if (Thread.currentThread() instanceof WorkerThread thread && thread.clock != 0) {
            return thread.clock;
        }
        return System.nanoTime();
    }

    /**
     * @return where a handler call timed on its own starts: within a run that times each call, the end
     * of the call before it (or the run's start); else {@link System#nanoTime()} read now (in a run that
     * sums, a call of another handler's, which leaves the run's clock alone)
     */
    public static long callStart() {
        if (Thread.currentThread() instanceof WorkerThread thread && thread.clock != 0 && !thread.summing) {
            return thread.clock;
        }
        return System.nanoTime();
    }

    /**
     * @return {@link System#nanoTime()} read now, the end of a call timed on its own, which within a run
     * that times each call is the run's latest reading from now on
     */
    public static long lap() {
        long now = System.nanoTime();
        if (Thread.currentThread() instanceof WorkerThread thread && thread.clock != 0 && !thread.summing) {
            thread.clock = now;
        }
        return now;
    }
}
