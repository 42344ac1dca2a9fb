package dev.sockstate.autoconfigure.metrics;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.port.Backend;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.observer.ServerObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

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

    /** Spring Boot's metrics module, where {@code management.metrics.*} is read: an application may have Micrometer without it. */
    private static final boolean BOOT_METRICS = ClassUtils.isPresent(
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsProperties",
            SockstateMetricsAutoConfiguration.class.getClassLoader());

    @Bean
    @ConditionalOnMissingBean(ServerObserver.class)
    MicrometerServerObserver sockstateServerObserver(MeterRegistry registry, ListableBeanFactory beans, ObjectProvider<Backend> backend) {
        if (!BOOT_METRICS) {
            // Spring Boot's metrics module applies MeterFilter beans to the registries; without it the backend tag is
            // applied here, before the servers register a meter.
            registry.config().meterFilter(new BackendTag(backend));
        }
        return new MicrometerServerObserver(registry, BOOT_METRICS && MetricsDistribution.asked(beans, HANDLER));
    }

    /** Counts the heartbeats of the listeners that have one ({@code sockstate.heartbeats}). */
    @Bean
    HeartbeatMeters sockstateHeartbeatMeters(SocketServer server, MeterRegistry registry) {
        return new HeartbeatMeters(server, registry);
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
}
