package dev.sockstate.server.engine;

/**
 * A token bucket of bytes, for traffic shaping: it refills at a rate of bytes a second up to a tenth
 * of a second's worth, and may go below empty (a debt, which what refills pays first) when bytes were
 * taken that several takers were offered at once. The rate is given at each refill, so that a change
 * of the shaping takes effect at the next. Not thread-safe: a connection's own buckets are its
 * owner's, a listener's shared ones are used under their own lock ({@link ShapingControl}).
 */
final class TokenBucket {

    private static final double NANOS_PER_SECOND = 1e9;

    /** The rate of the last refill, 0 while it was not shaping. */
    private long rate;

    /** The bytes that may go now; negative for a debt. */
    private long tokens;

    /** Up to when, in {@link System#nanoTime()}, the refill was counted. */
    private long stamp;

    /**
     * @param rate bytes a second
     * @return the most the bucket holds: a tenth of a second's worth, at least one byte
     */
    static long burst(long rate) {
        return Math.max(1, rate / 10);
    }

    /**
     * @param rate bytes a second
     * @return the bytes a bucket that ran dry waits for before it lets a taker go on: enough for a
     * read or a send worth its system call (16 KiB, or a hundredth of a second's worth when more), at
     * most what the bucket holds
     */
    static long wakeLevel(long rate) {
        return Math.min(burst(rate), Math.max(16 * 1024, rate / 100));
    }

    /**
     * Refills the bucket to now.
     * @param rate bytes a second, 0 for none (nothing is counted)
     * @param now the time, {@link System#nanoTime()}
     * @return the bytes that may go now: negative for a debt, {@link Long#MAX_VALUE} without a rate
     */
    long refill(long rate, long now) {
        if (rate == 0) {
            this.rate = 0;
            return Long.MAX_VALUE;
        }
        long burst = burst(rate);
        if (this.rate == 0) {
            // Shaping begins (or began again): full.
            this.rate = rate;
            this.tokens = burst;
            this.stamp = now;
            return burst;
        }
        this.rate = rate;
        long elapsed = now - this.stamp;
        if (elapsed > 0) {
            long whole = (long) Math.min(Long.MAX_VALUE / 2.0, elapsed * (rate / NANOS_PER_SECOND));
            if (whole >= burst - this.tokens) {
                this.tokens = burst;
                this.stamp = now;
            }
            else if (whole > 0) {
                this.tokens += whole;
                // Only the time the whole bytes took is spent: the fraction of a byte carries over.
                this.stamp = Math.min(now, this.stamp + (long) Math.ceil(whole * NANOS_PER_SECOND / rate));
            }
        }
        // A rate lowered since: no more than its own burst.
        this.tokens = Math.min(this.tokens, burst);
        return this.tokens;
    }

    /** @param bytes bytes that went, counted against the bucket (nothing without a rate) */
    void take(long bytes) {
        if (this.rate != 0) {
            this.tokens -= bytes;
        }
    }

    /**
     * @param level the bytes wanted
     * @return nanoseconds from the last refill until the bucket holds them, 0 when it does
     */
    long nanosUntil(long level) {
        long missing = level - this.tokens;
        if (missing <= 0 || this.rate == 0) {
            return 0;
        }
        return (long) Math.ceil(missing * NANOS_PER_SECOND / this.rate);
    }
}
