package dev.sockstate.benchmarks.e2e;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/** {@link StarterEchoApplication} with a Prometheus registry, so that the starter reports every meter. */
@Configuration(proxyBeanMethods = false)
@Import(StarterEchoApplication.class)
class MeteredStarterEchoApplication {

    @Bean
    PrometheusMeterRegistry prometheusMeterRegistry() {
        return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }
}
