package dev.sockstate.autoconfigure.actuate;

import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.cloud.CloudPlatform;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Puts the {@code sockstate} health indicator in the readiness group, beside the application's
 * readiness state, when the availability probes are on (on Kubernetes, or with
 * {@code management.endpoint.health.probes.enabled=true}) and the application does not configure
 * that group itself: a load balancer or Kubernetes then stops sending traffic while the socket
 * server is down or draining.
 */
class ReadinessGroupEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    static final String READINESS_INCLUDE = "management.endpoint.health.group.readiness.include";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        boolean probes = environment.getProperty("management.endpoint.health.probes.enabled", Boolean.class,
                CloudPlatform.getActive(environment) == CloudPlatform.KUBERNETES);
        if (!probes || environment.containsProperty(READINESS_INCLUDE)
                || !environment.getProperty("sockstate.enabled", Boolean.class, true)) {
            return;
        }
        environment.getPropertySources().addLast(new MapPropertySource("sockstateReadinessGroup",
                Map.of(READINESS_INCLUDE, "readinessState,sockstate")));
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
