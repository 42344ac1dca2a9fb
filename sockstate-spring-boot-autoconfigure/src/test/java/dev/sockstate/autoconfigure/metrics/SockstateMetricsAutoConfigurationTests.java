package dev.sockstate.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.observer.ServerObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class SockstateMetricsAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateMetricsAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withPropertyValues("sockstate.workers.threads=1");

    @Test
    void aMeterRegistryGetsTheServersMetersAtStartUp() {
        this.runner.withUserConfiguration(RegistryConfiguration.class).run((context) -> {
            assertThat(context).hasSingleBean(MicrometerServerObserver.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.find("sockstate.dequeues").tag("outcome", "timeout").functionCounter()).isNotNull();
            assertThat(registry.find("sockstate.dequeue.wait").functionTimer()).isNotNull();
            assertThat(registry.find("sockstate.dequeue.batch").meter().getId().getType())
                    .isEqualTo(io.micrometer.core.instrument.Meter.Type.DISTRIBUTION_SUMMARY);
        });
    }

    @Test
    void itBacksOffWithoutAMeterRegistry() {
        this.runner.run((context) -> assertThat(context).doesNotHaveBean(ServerObserver.class));
    }

    @Test
    void itBacksOffWithoutMicrometer() {
        this.runner.withUserConfiguration(RegistryConfiguration.class).withClassLoader(new FilteredClassLoader("io.micrometer"))
                .run((context) -> assertThat(context).doesNotHaveBean(ServerObserver.class));
    }

    @Test
    void aUserObserverReplacesTheMicrometerOne() {
        this.runner.withUserConfiguration(RegistryConfiguration.class, ObserverConfiguration.class)
                .run((context) -> assertThat(context).hasSingleBean(ServerObserver.class).doesNotHaveBean(MicrometerServerObserver.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class RegistryConfiguration {

        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ObserverConfiguration {

        @Bean
        ServerObserver customObserver() {
            return new ServerObserver() {
            };
        }
    }
}
