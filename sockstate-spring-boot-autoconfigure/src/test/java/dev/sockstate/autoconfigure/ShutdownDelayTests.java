package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code sockstate.shutdown.delay}: as the stop begins, the readiness state refuses traffic while
 * the listeners go on accepting and serving for the delay, so that a load balancer checking the
 * readiness probe stops sending connections before they close; the drain then gets what is left of
 * the shutdown phase.
 */
class ShutdownDelayTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withUserConfiguration(TestHandlers.EchoConfiguration.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0");

    @Test
    void duringTheDelayTheReadinessRefusesTrafficWhileTheListenerGoesOnAcceptingAndServing() {
        this.runner.withPropertyValues("sockstate.shutdown.delay=1500ms").run((context) -> {
            int port = context.getEnvironment().getProperty("local.sockstate.echo.port", Integer.class);
            ApplicationAvailability availability = context.getBean(ApplicationAvailability.class);
            // Ready, as SpringApplication makes it once the context has started.
            AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
            assertThat(availability.getReadinessState()).isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
            Thread closing = new Thread(context::close, "closing the context");
            closing.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (availability.getReadinessState() != ReadinessState.REFUSING_TRAFFIC) {
                assertThat(System.nanoTime() - deadline).as("the readiness state refusing traffic as the stop began").isNegative();
                Thread.sleep(5);
            }
            // The balancer has yet to notice: a connection made now is accepted and answered.
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                client.setSoTimeout(10_000);
                client.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
                InputStream in = client.getInputStream();
                assertThat(new String(in.readNBytes(4), StandardCharsets.US_ASCII)).as("the answer during the delay").isEqualTo("ping");
                // Then the graceful stop ends it cleanly.
                assertThat(in.read()).as("what the peer reads once the delay is over: a clean end").isEqualTo(-1);
            }
            closing.join(TimeUnit.SECONDS.toMillis(20));
            assertThat(closing.isAlive()).as("the close, over").isFalse();
        });
    }

    @Test
    void theDrainGetsTheShutdownPhaseLessTheDelay() {
        this.runner.withPropertyValues("sockstate.shutdown.delay=3s", "spring.lifecycle.timeout-per-shutdown-phase=20s")
                .run((context) -> assertThat(context.getBean(SocketServerLifecycle.class).shutdownTimeout()).isEqualTo(Duration.ofSeconds(12)));
    }

    @Test
    void aDelayThatLeavesTheStopNoRoomWithinTheShutdownPhaseFailsStartUpNamingIt() {
        this.runner.withPropertyValues("sockstate.shutdown.delay=25s").run((context) -> assertThat(
                StartupFailures.find(context, InvalidConfigurationPropertyValueException.class)).satisfies((ex) -> {
                    assertThat(ex.getName()).isEqualTo("sockstate.shutdown.delay");
                    assertThat(ex.getReason()).contains("spring.lifecycle.timeout-per-shutdown-phase (PT30S)").contains("less than PT25S");
                }));
    }

    @Test
    void aTimeoutThatTheDelayLeavesNoRoomForFailsStartUpNamingBoth() {
        this.runner.withPropertyValues("sockstate.shutdown.delay=10s", "sockstate.shutdown.timeout=20s").run((context) -> assertThat(
                StartupFailures.find(context, InvalidConfigurationPropertyValueException.class)).satisfies((ex) -> {
                    assertThat(ex.getName()).isEqualTo("sockstate.shutdown.timeout");
                    assertThat(ex.getReason()).contains("at most PT25S").contains("less sockstate.shutdown.delay (PT10S)");
                }));
    }
}
