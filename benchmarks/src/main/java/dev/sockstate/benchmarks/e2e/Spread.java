package dev.sockstate.benchmarks.e2e;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The median of a set of values over rounds, with the smallest and largest.
 *
 * @param median the median
 * @param min the smallest
 * @param max the largest
 */
record Spread(double median, double min, double max) {

    static Spread of(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).filter((value) -> !Double.isNaN(value)).toArray();
        if (sorted.length == 0) {
            return new Spread(Double.NaN, Double.NaN, Double.NaN);
        }
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        double median = (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
        return new Spread(median, sorted[0], sorted[sorted.length - 1]);
    }

    /** @param format the format of one number @return "median (min–max)" */
    String format(String format) {
        if (Double.isNaN(this.median)) {
            return "–";
        }
        return String.format(Locale.ROOT, format + " (" + format + "–" + format + ")", this.median, this.min, this.max);
    }
}
