package dev.sockstate.server.client;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a client waits before it connects again after a connect failed or a connection closed:
 * {@code initial} after the first failure, twice as long after each failure that follows, never more
 * than {@code max}; each wait shortened or lengthened at random by up to {@code jitter} of itself, so
 * that the clients of many processes do not knock on a restarted backend together. A connection that
 * opens starts the count again.
 * @param initial the first wait
 * @param max the longest wait
 * @param jitter the part of each wait drawn at random, from 0 (none) to 1
 */
public record Backoff(Duration initial, Duration max, double jitter) {

    /** 100 ms, doubling up to 10 s, each wait within 20% either way. */
    public static final Backoff DEFAULT = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10), 0.2);

    /**
     * @throws IllegalArgumentException when a duration is not positive, {@code max} is shorter than
     * {@code initial}, or the jitter is outside 0 to 1
     */
    public Backoff {
        Objects.requireNonNull(initial, "initial");
        Objects.requireNonNull(max, "max");
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("A backoff needs a positive initial wait and a max at least as long, not "
                    + initial + " and " + max);
        }
        if (!(jitter >= 0 && jitter <= 1)) {
            throw new IllegalArgumentException("A backoff's jitter must be between 0 and 1, not " + jitter);
        }
    }

    /**
     * @param failures the failures in a row so far, from 1
     * @param random a number drawn between 0 and 1
     * @return the wait in milliseconds before the next connect
     */
    public long delayMillis(int failures, double random) {
        long initialMillis = Math.max(1, this.initial.toMillis());
        long maxMillis = Math.max(initialMillis, this.max.toMillis());
        int doublings = Math.min(Math.max(failures, 1) - 1, 30);
        long wait = Math.min(maxMillis, initialMillis << doublings);
        double spread = this.jitter * (2 * random - 1);
        return Math.max(1, Math.round(wait * (1 + spread)));
    }
}
