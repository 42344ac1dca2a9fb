package dev.sockstate.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.observer.ServerObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsProperties;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class SockstateMetricsAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateMetricsAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withUserConfiguration(EchoConfiguration.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0");

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
    void aDistributionOfHandlerTimeIsFoundAsSpringBootFindsIt() {
        assertThat(asked("percentiles-histogram.sockstate.handler", "true")).isTrue();
        assertThat(asked("percentiles-histogram.sockstate", "true")).as("a prefix").isTrue();
        assertThat(asked("percentiles.all", "0.99")).as("all").isTrue();
        assertThat(asked("slo.sockstate.handler", "10ms")).isTrue();
        assertThat(asked("percentiles-histogram.sockstate.handler.call", "true")).as("a longer name").isFalse();
        assertThat(asked("percentiles-histogram.all", "false")).isFalse();
        assertThat(asked("percentiles-histogram.sockstate.handler", "false", "percentiles-histogram.all", "true"))
                .as("the longest match wins").isFalse();
        assertThat(asked("expiry.sockstate.handler", "1m")).as("no distribution").isFalse();
    }

    private static boolean asked(String... keysAndValues) {
        Map<String, String> properties = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            properties.put("management.metrics.distribution." + keysAndValues[i], keysAndValues[i + 1]);
        }
        MetricsProperties metrics = new Binder(new MapConfigurationPropertySource(properties))
                .bindOrCreate("management.metrics", MetricsProperties.class);
        return MetricsDistribution.asked(metrics.getDistribution(), "sockstate.handler");
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

    @Test
    void itBacksOffWithoutAServer() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SockstateMetricsAutoConfiguration.class,
                SockstateAutoConfiguration.class)).withUserConfiguration(RegistryConfiguration.class)
                .run((context) -> assertThat(context).doesNotHaveBean(ServerObserver.class).doesNotHaveBean(BackendTag.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class EchoConfiguration {

        @Bean
        Echo echo() {
            return new Echo();
        }
    }

    @dev.sockstate.spring.handler.SocketHandler("echo")
    static class Echo {

        @dev.sockstate.spring.handler.OnData
        java.nio.ByteBuffer echo(java.nio.ByteBuffer data) {
            return data;
        }
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
