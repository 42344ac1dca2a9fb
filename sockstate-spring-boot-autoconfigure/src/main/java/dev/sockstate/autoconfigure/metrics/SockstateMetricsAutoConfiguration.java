package dev.sockstate.autoconfigure.metrics;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.port.Backend;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.observer.ServerObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsProperties;
import org.springframework.context.annotation.Bean;

/**
 * Metrics of the socket servers in Micrometer: registrations, dequeues, notifications, handler
 * time, connections and bytes, and the outbound clients' connects and requests. Backs off without Micrometer or without a {@link MeterRegistry};
 * the runtime then reports nothing and pays nothing.
 */
@AutoConfiguration(after = SockstateAutoConfiguration.class,
        afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass({ MeterRegistry.class, ServerObserver.class })
@ConditionalOnBean({ SocketServer.class, MeterRegistry.class })
public final class SockstateMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(ServerObserver.class)
    MicrometerServerObserver sockstateServerObserver(MeterRegistry registry, ObjectProvider<MetricsProperties> properties) {
        MetricsProperties metrics = properties.getIfAvailable();
        return new MicrometerServerObserver(registry, metrics != null && distributionAsked(metrics.getDistribution(), HANDLER));
    }

    /**
     * Tags the meters of the notification ports (dequeues, notifications, registrations) with the
     * backend the server runs on: {@code backend=epoll}, {@code winsock} or {@code nio}.
     */
    @Bean
    static MeterFilter sockstateBackendTag(ObjectProvider<Backend> backend) {
        return new BackendTag(backend);
    }

    private static final String HANDLER = "sockstate.handler";

    /**
     * @return whether {@code management.metrics.distribution.*} asks for a histogram, percentiles or
     * SLO buckets of the meter, found as Spring Boot finds them: by the name, each shorter prefix of
     * it, then {@code all}
     */
    static boolean distributionAsked(MetricsProperties.Distribution distribution, String meter) {
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
