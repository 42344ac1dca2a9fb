package dev.sockstate.benchmarks.e2e;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * A chart of grouped bars as plain SVG text, made to be shown as an image on GitHub (no script, no
 * external font, a white background): a group per load, in each a bar per server at the median of
 * the rounds with a whisker from the lowest round to the highest, a value axis from zero with a few
 * labelled ticks, a title and subtitle that name the unit, and a legend with each server's own colour
 * ({@link ServerColours}). The same figures give the same bytes: nothing in the text depends on the
 * time, the locale or the order of a hash.
 */
final class BarChart {

    /**
     * One group of bars.
     *
     * @param label what the group is (a load), written under it
     * @param spreads each server's median and range over the rounds; a server without one has no bar
     */
    record Group(String label, Map<ServerKind, Spread> spreads) {
    }

    private static final double MARGIN = 16;

    /** Room left of the plot for the tick labels and the unit. */
    private static final double AXIS_ROOM = 72;

    private static final double TOP = 64;

    private static final double PLOT_HEIGHT = 300;

    private static final double MIN_PLOT_WIDTH = 200;

    private static final double MAX_PLOT_WIDTH = 720;

    private static final double MAX_BAR_WIDTH = 40;

    private static final double LEGEND_ROW = 18;

    /** Estimated advance of a character of 12 px sans-serif (11 px: 0.92 of it; bold 16 px: 1.45). */
    private static final double CHAR_WIDTH = 6.8;

    /** The slant of group labels too long to lie flat, in degrees. */
    private static final double SLANT = 35;

    private static final int TICKS = 5;

    private final String title;

    private final String subtitle;

    private final String unit;

    private final List<ServerKind> servers;

    private final List<Group> groups;

    /**
     * @param title what is measured, with its unit
     * @param subtitle how to read the bars
     * @param unit the value axis's label
     * @param servers the servers, in the legend's order and each group's
     * @param groups the groups, left to right
     */
    BarChart(String title, String subtitle, String unit, List<ServerKind> servers, List<Group> groups) {
        this.title = title;
        this.subtitle = subtitle;
        this.unit = unit;
        this.servers = List.copyOf(servers);
        this.groups = List.copyOf(groups);
    }

    /** @return the chart as an SVG document */
    String svg() {
        Axis axis = axis();
        int count = Math.max(1, this.servers.size());
        double plotWidth = Math.max(MIN_PLOT_WIDTH, Math.min(MAX_PLOT_WIDTH, this.groups.size() * (count * 20.0 + 20)));
        double groupWidth = plotWidth / Math.max(1, this.groups.size());
        double barWidth = Math.min(MAX_BAR_WIDTH, groupWidth * 0.8 / count);
        int labelChars = this.groups.stream().mapToInt((group) -> group.label().length()).max().orElse(0);
        double labelLength = labelChars * CHAR_WIDTH * 0.92;
        boolean slanted = labelLength > groupWidth - 4;
        double below = slanted ? 16 + labelLength * Math.sin(Math.toRadians(SLANT)) + 8 : 30;
        double plotLeft = MARGIN + AXIS_ROOM;
        if (slanted) {
            // The first group's label reaches left of its group: room for it.
            plotLeft = Math.max(plotLeft, MARGIN + labelLength * Math.cos(Math.toRadians(SLANT)) - groupWidth / 2);
        }
        double plotHeight = Math.max(PLOT_HEIGHT, this.servers.size() * LEGEND_ROW);
        double plotBottom = TOP + plotHeight;
        double legendLeft = plotLeft + plotWidth + 24;
        int legendChars = this.servers.stream().mapToInt((server) -> server.label.length()).max().orElse(0);
        double width = Math.max(legendLeft + 18 + legendChars * CHAR_WIDTH + MARGIN,
                Math.max(this.title.length() * CHAR_WIDTH * 1.45, this.subtitle.length() * CHAR_WIDTH) + 2 * MARGIN);
        double height = plotBottom + below + MARGIN;
        int w = (int) Math.ceil(width);
        int h = (int) Math.ceil(height);

        StringBuilder svg = new StringBuilder();
        svg.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(w).append("\" height=\"").append(h)
                .append("\" viewBox=\"0 0 ").append(w).append(' ').append(h).append("\" font-family=\"sans-serif\">\n");
        svg.append("<title>").append(escape(this.title)).append("</title>\n");
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
        svg.append("<text x=\"").append(n(MARGIN)).append("\" y=\"24\" font-size=\"16\" font-weight=\"bold\" fill=\"#222222\">")
                .append(escape(this.title)).append("</text>\n");
        svg.append("<text x=\"").append(n(MARGIN)).append("\" y=\"44\" font-size=\"12\" fill=\"#555555\">")
                .append(escape(this.subtitle)).append("</text>\n");

        // The value axis: grid lines at the ticks, their labels, and the unit.
        svg.append("<g font-size=\"11\" fill=\"#444444\">\n");
        for (BigDecimal tick : axis.ticks()) {
            double y = axis.y(tick.doubleValue(), TOP, plotHeight);
            svg.append("<line x1=\"").append(n(plotLeft)).append("\" y1=\"").append(n(y)).append("\" x2=\"")
                    .append(n(plotLeft + plotWidth)).append("\" y2=\"").append(n(y)).append("\" stroke=\"#e3e3e3\"/>\n");
            svg.append("<text x=\"").append(n(plotLeft - 6)).append("\" y=\"").append(n(y + 4)).append("\" text-anchor=\"end\">")
                    .append(escape(axis.label(tick))).append("</text>\n");
        }
        double middle = TOP + plotHeight / 2;
        svg.append("<text x=\"").append(n(MARGIN + 4)).append("\" y=\"").append(n(middle)).append("\" text-anchor=\"middle\"")
                .append(" transform=\"rotate(-90 ").append(n(MARGIN + 4)).append(' ').append(n(middle)).append(")\">")
                .append(escape(this.unit)).append("</text>\n");
        svg.append("</g>\n");

        // The bars, their whiskers and the groups' labels.
        double zero = axis.y(0, TOP, plotHeight);
        String format = axis.valueFormat();
        for (int g = 0; g < this.groups.size(); g++) {
            Group group = this.groups.get(g);
            double groupLeft = plotLeft + g * groupWidth;
            double barsLeft = groupLeft + (groupWidth - barWidth * this.servers.size()) / 2;
            for (int s = 0; s < this.servers.size(); s++) {
                ServerKind server = this.servers.get(s);
                Spread spread = group.spreads().get(server);
                if (spread == null || Double.isNaN(spread.median())) {
                    continue;
                }
                double x = barsLeft + s * barWidth;
                double top = axis.y(spread.median(), TOP, plotHeight);
                svg.append("<rect class=\"bar\" data-server=\"").append(escape(server.label)).append("\" data-group=\"")
                        .append(escape(group.label())).append("\" x=\"").append(n(x + 0.5)).append("\" y=\"")
                        .append(n(Math.min(top, zero))).append("\" width=\"").append(n(barWidth - 1)).append("\" height=\"")
                        .append(n(Math.abs(zero - top))).append("\" fill=\"").append(ServerColours.of(server)).append("\">");
                svg.append("<title>").append(escape(server.label + ", " + group.label() + ": " + spread.format(format) + " "
                        + this.unit)).append("</title></rect>\n");
                if (!Double.isNaN(spread.min()) && !Double.isNaN(spread.max()) && spread.max() > spread.min()) {
                    whisker(svg, x + barWidth / 2, axis.y(spread.min(), TOP, plotHeight), axis.y(spread.max(), TOP, plotHeight),
                            Math.min(8, barWidth * 0.6));
                }
            }
            double centre = groupLeft + groupWidth / 2;
            double labelY = plotBottom + 16;
            svg.append("<text x=\"").append(n(centre)).append("\" y=\"").append(n(labelY)).append("\" font-size=\"11\" fill=\"#222222\"");
            if (slanted) {
                svg.append(" text-anchor=\"end\" transform=\"rotate(-").append(n(SLANT)).append(' ').append(n(centre)).append(' ')
                        .append(n(labelY)).append(")\"");
            }
            else {
                svg.append(" text-anchor=\"middle\"");
            }
            svg.append('>').append(escape(group.label())).append("</text>\n");
        }
        svg.append("<line x1=\"").append(n(plotLeft)).append("\" y1=\"").append(n(zero)).append("\" x2=\"").append(n(plotLeft + plotWidth))
                .append("\" y2=\"").append(n(zero)).append("\" stroke=\"#333333\"/>\n");
        svg.append("<line x1=\"").append(n(plotLeft)).append("\" y1=\"").append(n(TOP)).append("\" x2=\"").append(n(plotLeft))
                .append("\" y2=\"").append(n(plotBottom)).append("\" stroke=\"#333333\"/>\n");

        // The legend: a swatch and a name for each server.
        svg.append("<g font-size=\"12\" fill=\"#222222\">\n");
        for (int s = 0; s < this.servers.size(); s++) {
            ServerKind server = this.servers.get(s);
            double y = TOP + s * LEGEND_ROW;
            svg.append("<rect x=\"").append(n(legendLeft)).append("\" y=\"").append(n(y)).append("\" width=\"12\" height=\"12\" fill=\"")
                    .append(ServerColours.of(server)).append("\"/>\n");
            svg.append("<text x=\"").append(n(legendLeft + 18)).append("\" y=\"").append(n(y + 10)).append("\">")
                    .append(escape(server.label)).append("</text>\n");
        }
        svg.append("</g>\n");
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static void whisker(StringBuilder svg, double x, double low, double high, double cap) {
        svg.append("<path class=\"whisker\" d=\"M").append(n(x)).append(' ').append(n(low)).append(" V").append(n(high))
                .append(" M").append(n(x - cap / 2)).append(' ').append(n(high)).append(" H").append(n(x + cap / 2))
                .append(" M").append(n(x - cap / 2)).append(' ').append(n(low)).append(" H").append(n(x + cap / 2))
                .append("\" stroke=\"#222222\" stroke-width=\"1.2\" fill=\"none\"/>\n");
    }

    /** @return an axis from zero (or below it, for a negative value) past every bar's and whisker's end */
    private Axis axis() {
        double lowest = 0;
        double highest = 0;
        for (Group group : this.groups) {
            for (ServerKind server : this.servers) {
                Spread spread = group.spreads().get(server);
                if (spread == null) {
                    continue;
                }
                for (double value : new double[] {spread.median(), spread.min(), spread.max()}) {
                    if (!Double.isNaN(value) && !Double.isInfinite(value)) {
                        lowest = Math.min(lowest, value);
                        highest = Math.max(highest, value);
                    }
                }
            }
        }
        return Axis.of(lowest, highest);
    }

    /** @return a coordinate with one decimal, the same in every locale */
    private static String n(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /**
     * The value axis: from {@code low} to {@code high} in steps of 1, 2, 2.5 or 5 times a power of ten,
     * about {@value BarChart#TICKS} of them.
     *
     * @param low the axis's lowest value, zero unless a value is negative
     * @param high its highest value
     * @param step between ticks
     */
    record Axis(BigDecimal low, BigDecimal high, BigDecimal step) {

        static Axis of(double lowest, double highest) {
            double range = highest - lowest;
            BigDecimal step = niceStep((range > 0) ? range / TICKS : 1.0 / TICKS);
            BigDecimal high = multipleAtOrAbove(highest, step);
            BigDecimal low = (lowest < 0) ? multipleAtOrAbove(-lowest, step).negate() : BigDecimal.ZERO;
            if (high.compareTo(low) <= 0) {
                high = low.add(step.multiply(BigDecimal.valueOf(TICKS)));
            }
            return new Axis(low, high, step);
        }

        /** @return 1, 2, 2.5, 5 or 10 times a power of ten, the least at or above the rough step */
        private static BigDecimal niceStep(double rough) {
            int exponent = (int) Math.floor(Math.log10(rough));
            double fraction = rough / Math.pow(10, exponent);
            String nice = (fraction <= 1) ? "1" : (fraction <= 2) ? "2" : (fraction <= 2.5) ? "2.5" : (fraction <= 5) ? "5" : "10";
            return new BigDecimal(nice).scaleByPowerOfTen(exponent);
        }

        /** @return the least multiple of {@code step} at or above the value (a hair above counts as at) */
        private static BigDecimal multipleAtOrAbove(double value, BigDecimal step) {
            long multiples = (long) Math.ceil(value / step.doubleValue() - 1e-9);
            return step.multiply(BigDecimal.valueOf(Math.max(0, multiples)));
        }

        /** @return the ticks from low to high */
        List<BigDecimal> ticks() {
            int count = this.high.subtract(this.low).divide(this.step, 0, RoundingMode.HALF_UP).intValue();
            return IntStream.rangeClosed(0, count)
                    .mapToObj((i) -> this.low.add(this.step.multiply(BigDecimal.valueOf(i)))).toList();
        }

        /**
         * @param value a value
         * @param top the plot's top edge
         * @param height the plot's height
         * @return where the value is on the page
         */
        double y(double value, double top, double height) {
            double low = this.low.doubleValue();
            return top + height * (this.high.doubleValue() - value) / (this.high.doubleValue() - low);
        }

        /** @return the tick's label, in thousands (k) or millions (M) where the axis reaches that far */
        String label(BigDecimal tick) {
            double high = this.high.doubleValue();
            if (tick.signum() == 0) {
                return "0";
            }
            if (high >= 1e6) {
                return tick.movePointLeft(6).stripTrailingZeros().toPlainString() + "M";
            }
            if (high >= 1e4) {
                return tick.movePointLeft(3).stripTrailingZeros().toPlainString() + "k";
            }
            return tick.stripTrailingZeros().toPlainString();
        }

        /** @return the format of one value in a bar's tooltip, with decimals where the axis is small */
        String valueFormat() {
            double high = this.high.doubleValue();
            return (high >= 100) ? "%,.0f" : (high >= 10) ? "%.1f" : "%.2f";
        }
    }
}
