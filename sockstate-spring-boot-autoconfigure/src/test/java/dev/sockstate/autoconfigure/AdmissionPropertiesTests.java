package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.admission.Admission;
import dev.sockstate.server.admission.Rate;
import dev.sockstate.server.engine.SocketServer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** A listener's {@code admission.*} properties: mapped onto the runtime's rules, refused naming the property where they are wrong. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AdmissionPropertiesTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withUserConfiguration(TestHandlers.EchoConfiguration.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=1s", "sockstate.auto-startup=false",
                    "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=0");

    @Test
    void everyRuleIsMappedFromItsProperty() {
        this.runner.withPropertyValues("sockstate.listeners.echo.admission.allow=10.0.0.0/8, fd00::/8",
                "sockstate.listeners.echo.admission.deny=10.6.6.6", "sockstate.listeners.echo.admission.max-connections-per-source=100",
                "sockstate.listeners.echo.admission.source-prefix.ipv4=24", "sockstate.listeners.echo.admission.source-prefix.ipv6=64",
                "sockstate.listeners.echo.admission.source-rate.per-second=20", "sockstate.listeners.echo.admission.source-rate.burst=40",
                "sockstate.listeners.echo.admission.listener-rate.per-second=2000", "sockstate.listeners.echo.admission.max-sources=1000")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    Admission admission = context.getBean(SocketServer.class).listenerSettings().get(0).admission();
                    assertThat(admission.allow()).containsExactly("10.0.0.0/8", "fd00::/8");
                    assertThat(admission.deny()).containsExactly("10.6.6.6");
                    assertThat(admission.maxConnectionsPerSource()).isEqualTo(100);
                    assertThat(admission.ipv4SourcePrefix()).isEqualTo(24);
                    assertThat(admission.ipv6SourcePrefix()).isEqualTo(64);
                    assertThat(admission.sourceRate()).isEqualTo(new Rate(20, 40));
                    assertThat(admission.listenerRate()).isEqualTo(new Rate(2000, 2000));
                    assertThat(admission.maxSources()).isEqualTo(1000);
                });
    }

    @Test
    void withoutAdmissionPropertiesAListenerHasNoRule() {
        this.runner.run((context) -> assertThat(context.getBean(SocketServer.class).listenerSettings().get(0).admission())
                .isEqualTo(Admission.NONE));
    }

    @Test
    void aRangeThatIsNoAddressFailsNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.echo.admission.deny=bad.example.com")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class))
                        .satisfies((ex) -> {
                            assertThat(ex.getName()).isEqualTo("sockstate.listeners.echo.admission.deny");
                            assertThat(ex.getMessage()).contains("'bad.example.com' is not a literal IPv4 or IPv6 address");
                        }));
    }

    @Test
    void aRateWithoutItsConnectionsASecondFailsNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.echo.admission.listener-rate.burst=10")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class))
                        .satisfies((ex) -> assertThat(ex.getName()).isEqualTo("sockstate.listeners.echo.admission.listener-rate.per-second")));
    }

    @Test
    void rulesOnAUdpListenerFailNamingTheProperty() {
        this.runner.withUserConfiguration(TestHandlers.EchoConfiguration.class)
                .withPropertyValues("sockstate.listeners.echo.protocol=udp", "sockstate.listeners.echo.admission.deny=10.0.0.0/8")
                .run((context) -> assertThat(StartupFailures.find(context, InvalidConfigurationPropertyValueException.class))
                        .satisfies((ex) -> {
                            assertThat(ex.getName()).isEqualTo("sockstate.listeners.echo.admission");
                            assertThat(ex.getMessage()).contains("none for a UDP listener");
                        }));
    }
}
