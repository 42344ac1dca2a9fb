package dev.sockstate.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.port.RefusingPorts;
import dev.sockstate.server.engine.SocketServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The socket server in the readiness probe, for each combination of the probes and the indicator:
 * a member by default, left out when either is off or the application names the group's members,
 * and start-up never fails for it; a client only when it asks to be.
 */
class ReadinessGroupTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class,
                    HealthContributorRegistryAutoConfiguration.class, HealthContributorAutoConfiguration.class,
                    HealthEndpointAutoConfiguration.class, AvailabilityProbesAutoConfiguration.class,
                    AvailabilityHealthContributorAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
                    SockstateAutoConfiguration.class, SockstateHealthAutoConfiguration.class))
            .withBean(ObservabilityApplication.Echo.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0",
                    "sockstate.shutdown.timeout=1s");

    @Test
    void byDefaultTheReadinessProbeHasTheSocketServerBesideTheReadinessState() {
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            HealthEndpointGroup readiness = context.getBean(HealthEndpointGroups.class).get("readiness");
            assertThat(readiness.isMember("readinessState")).isTrue();
            assertThat(readiness.isMember("sockstate")).isTrue();
            AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
            assertThat(context.getBean(HealthEndpoint.class).healthForPath("readiness").getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void whileTheServerIsStoppedTheReadinessProbeIsOutOfService() {
        this.runner.run((context) -> {
            // The application is ready: only the socket server can take the probe out of service.
            AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
            assertThat(context.getBean(HealthEndpoint.class).healthForPath("readiness").getStatus()).isEqualTo(Status.UP);
            context.getBean(SocketServer.class).stop(Duration.ofSeconds(1));
            assertThat(context.getBean(HealthEndpoint.class).healthForPath("readiness").getStatus())
                    .isEqualTo(Status.OUT_OF_SERVICE);
        });
    }

    @Test
    void withTheIndicatorOffTheReadinessProbeIsSpringBootsAndStartupSucceeds() {
        this.runner.withPropertyValues("management.health.sockstate.enabled=false").run((context) -> {
            assertThat(context).hasNotFailed();
            HealthEndpointGroup readiness = context.getBean(HealthEndpointGroups.class).get("readiness");
            assertThat(readiness.isMember("readinessState")).isTrue();
            assertThat(readiness.isMember("sockstate")).isFalse();
        });
    }

    @Test
    void aWholeApplicationWithTheProbesOnAndTheIndicatorOffStarts() {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ObservabilityApplication.class)
                .web(WebApplicationType.NONE).properties("management.endpoint.health.probes.enabled=true",
                        "management.health.sockstate.enabled=false", "sockstate.workers.threads=1",
                        "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0", "sockstate.shutdown.timeout=1s")
                .run()) {
            assertThat(context.getBean(HealthEndpointGroups.class).get("readiness").isMember("sockstate")).isFalse();
            assertThat(context.getBean(HealthEndpoint.class).healthForPath("readiness").getStatus()).isEqualTo(Status.UP);
        }
    }

    @Test
    void withTheProbesOffThereIsNoReadinessGroup() {
        this.runner.withPropertyValues("management.endpoint.health.probes.enabled=false").run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(HealthEndpointGroups.class).get("readiness")).isNull();
        });
        this.runner.withPropertyValues("management.endpoint.health.probes.enabled=false", "management.health.sockstate.enabled=false")
                .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void aClientIsPartOfTheReadinessProbeOnlyWhenItsPropertySaysSo() throws Exception {
        int nothing = RefusingPorts.unused();
        this.runner.withPropertyValues("sockstate.clients.cache.address=127.0.0.1:" + nothing, "sockstate.clients.store.address=127.0.0.1:"
                + nothing, "sockstate.clients.store.health.readiness=true").run((context) -> {
                    assertThat(context).hasNotFailed();
                    HealthEndpointGroup readiness = context.getBean(HealthEndpointGroups.class).get("readiness");
                    assertThat(readiness.isMember("sockstateClients/store")).isTrue();
                    assertThat(readiness.isMember("sockstateClients/cache")).isFalse();
                    AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
                    HealthEndpoint health = context.getBean(HealthEndpoint.class);
                    assertThat(health.healthForPath("sockstateClients", "cache").getStatus()).isEqualTo(Status.DOWN);
                    assertThat(health.healthForPath("readiness").getStatus()).as("the store's backend is down").isEqualTo(Status.DOWN);
                });
        this.runner.withPropertyValues("sockstate.clients.cache.address=127.0.0.1:" + nothing).run((context) -> {
            AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
            assertThat(context.getBean(HealthEndpoint.class).healthForPath("readiness").getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void aReadinessGroupTheApplicationConfiguresIsLeftAsItIs() {
        this.runner.withPropertyValues("management.endpoint.health.group.readiness.include=readinessState").run((context) -> {
            assertThat(context).hasNotFailed();
            HealthEndpointGroup readiness = context.getBean(HealthEndpointGroups.class).get("readiness");
            assertThat(readiness.isMember("sockstate")).isFalse();
        });
    }
}
