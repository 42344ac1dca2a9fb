package dev.sockstate.autoconfigure.metrics;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.observer.ServerObserver;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Metrics of the socket servers in Micrometer: registrations, dequeues, notifications, handler
 * time, connections and bytes. Backs off without Micrometer or without a {@link MeterRegistry};
 * the runtime then reports nothing and pays nothing.
 */
@AutoConfiguration(before = SockstateAutoConfiguration.class,
        afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass({ MeterRegistry.class, ServerObserver.class })
@ConditionalOnBean(MeterRegistry.class)
public class SockstateMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(ServerObserver.class)
    MicrometerServerObserver sockstateServerObserver(MeterRegistry registry) {
        return new MicrometerServerObserver(registry);
    }
}
