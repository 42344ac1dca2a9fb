package dev.sockstate.benchmarks.e2e;

/**
 * Latencies in log-linear buckets (64 per power of two, under 1.6% error), recorded without
 * allocation by one thread; merged afterwards.
 */
final class LatencyHistogram {

    private static final int SUB_BUCKETS = 64;

    private static final int SUB_BITS = 6;

    private final long[] counts = new long[64 * SUB_BUCKETS];

    private long total;

    void record(long nanos) {
        long value = Math.max(1, nanos);
        int magnitude = 63 - Long.numberOfLeadingZeros(value);
        int index;
        if (magnitude < SUB_BITS) {
            index = (int) value;
        }
        else {
            int sub = (int) ((value >>> (magnitude - SUB_BITS)) & (SUB_BUCKETS - 1));
            index = (magnitude - SUB_BITS + 1) * SUB_BUCKETS + sub;
        }
        this.counts[index]++;
        this.total++;
    }

    void add(LatencyHistogram other) {
        for (int i = 0; i < this.counts.length; i++) {
            this.counts[i] += other.counts[i];
        }
        this.total += other.total;
    }

    long count() {
        return this.total;
    }

    /** @param quantile between 0 and 1 @return the latency in nanoseconds at that quantile, 0 when empty */
    long quantile(double quantile) {
        if (this.total == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(quantile * this.total);
        long seen = 0;
        for (int i = 0; i < this.counts.length; i++) {
            seen += this.counts[i];
            if (seen >= rank) {
                return lowerBound(i);
            }
        }
        return lowerBound(this.counts.length - 1);
    }

    private static long lowerBound(int index) {
        if (index < SUB_BUCKETS) {
            return index;
        }
        int magnitude = index / SUB_BUCKETS + SUB_BITS - 1;
        long sub = index % SUB_BUCKETS;
        return (1L << magnitude) | (sub << (magnitude - SUB_BITS));
    }
}
