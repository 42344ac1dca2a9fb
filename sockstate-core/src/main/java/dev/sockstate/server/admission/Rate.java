package dev.sockstate.server.admission;

/**
 * An accept rate, a token bucket: {@code perSecond} connections a second on average, and up to
 * {@code burst} at once after a quiet spell.
 *
 * @param perSecond the connections a second the bucket refills with, positive
 * @param burst the most it holds, at least 1
 */
public record Rate(double perSecond, int burst) {

    /** Checks the values. */
    public Rate {
        if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException("An accept rate must be a positive number of connections a second, not " + perSecond);
        }
        if (burst < 1) {
            throw new IllegalArgumentException("An accept rate's burst must be at least 1, not " + burst);
        }
    }

    /**
     * @param perSecond connections a second
     * @return the rate, with a burst of one second's worth (at least 1)
     */
    public static Rate perSecond(double perSecond) {
        return new Rate(perSecond, (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.ceil(perSecond))));
    }

    @Override
    public String toString() {
        return this.perSecond + "/s, burst " + this.burst;
    }
}
