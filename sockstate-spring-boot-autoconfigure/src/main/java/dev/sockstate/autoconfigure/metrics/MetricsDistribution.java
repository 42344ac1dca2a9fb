package dev.sockstate.autoconfigure.metrics;

import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsProperties;

/**
 * What {@code management.metrics.distribution.*} asks of a meter. Loaded only where Spring Boot's
 * metrics module is on the class path: the auto-configuration's own class names none of its types,
 * so that an application with Micrometer but without that module starts.
 */
final class MetricsDistribution {

    private MetricsDistribution() {
    }

    /**
     * @param beans the application's beans, which hold the {@link MetricsProperties} when Spring Boot's metrics auto-configuration ran
     * @param meter the meter's name
     * @return whether the properties ask for a histogram, percentiles or SLO buckets of the meter
     */
    static boolean asked(ListableBeanFactory beans, String meter) {
        MetricsProperties properties = beans.getBeanProvider(MetricsProperties.class).getIfAvailable();
        return properties != null && asked(properties.getDistribution(), meter);
    }

    /**
     * @return whether {@code management.metrics.distribution.*} asks for a histogram, percentiles or
     * SLO buckets of the meter, found as Spring Boot finds them: by the name, each shorter prefix of
     * it, then {@code all}
     */
    static boolean asked(MetricsProperties.Distribution distribution, String meter) {
        double[] percentiles = lookup(distribution.getPercentiles(), meter);
        Object[] slo = lookup(distribution.getSlo(), meter);
        return Boolean.TRUE.equals(lookup(distribution.getPercentilesHistogram(), meter))
                || (percentiles != null && percentiles.length > 0) || (slo != null && slo.length > 0);
    }

    /** @return the value set for the meter's name, its longest prefix with one, or {@code all}; {@code null} if none */
    private static <T> @Nullable T lookup(Map<String, T> values, String meter) {
        for (String key = meter; key != null; key = shorter(key)) {
            T value = values.get(key);
            if (value != null) {
                return value;
            }
        }
        return null;
    }

    /** @return the name without its last part, {@code all} after the first part, {@code null} after {@code all} */
    private static @Nullable String shorter(String key) {
        if (key.equals("all")) {
            return null;
        }
        int dot = key.lastIndexOf('.');
        return (dot > 0) ? key.substring(0, dot) : "all";
    }
}
