package dev.sockstate.autoconfigure.metrics;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.observer.ServerObserver;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * An application that declares a {@link MeterRegistry} of its own, with Micrometer but without
 * Spring Boot's metrics module ({@code spring-boot-micrometer-metrics}) on its class path; run in a
 * class loader that leaves that module out ({@link SockstateMetricsWithoutBootMetricsTests}).
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ SockstateAutoConfiguration.class, SockstateMetricsAutoConfiguration.class })
@Import(SockstateMetricsAutoConfigurationTests.EchoConfiguration.class)
public class WithoutBootMetricsApplication {

    @Bean
    SimpleMeterRegistry meterRegistry() {
        return new SimpleMeterRegistry();
    }

    /**
     * Starts the application, then stops it.
     * @return the observer's class name, the {@code backend} tag of {@code sockstate.dequeues}, then the names of the
     * sockstate meters the registry had
     */
    public static List<String> run() {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WithoutBootMetricsApplication.class)
                .web(WebApplicationType.NONE).properties("sockstate.workers.threads=1", "sockstate.listeners.echo.address=127.0.0.1",
                        "sockstate.listeners.echo.port=0", "spring.main.banner-mode=off")
                .run()) {
            List<String> seen = new ArrayList<>();
            seen.add(context.getBean(ServerObserver.class).getClass().getName());
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Meter dequeues = registry.find("sockstate.dequeues").meter();
            seen.add("backend=" + ((dequeues != null) ? dequeues.getId().getTag("backend") : "no sockstate.dequeues"));
            for (Meter meter : registry.getMeters()) {
                if (meter.getId().getName().startsWith("sockstate.") && !seen.contains(meter.getId().getName())) {
                    seen.add(meter.getId().getName());
                }
            }
            return seen;
        }
    }
}
