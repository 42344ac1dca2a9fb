package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.Setting;
import dev.sockstate.server.Setting.Scope;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/** The runtime's refusals reported against the property the mapping line of the setting named. */
class SettingSourcesTests {

    private final SettingSources sources = new SettingSources();

    @Test
    void aRefusalIsReportedAgainstThePropertyItsLineNamedWithTheRuntimesWordsSuppressed() {
        AtomicReference<Duration> set = new AtomicReference<>();
        this.sources.of(Scope.LISTENER, "echo", "listeners.echo.").from(Setting.IDLE_TIMEOUT, "idle-timeout", () -> Duration.ofSeconds(-1))
                .to(set::set);
        InvalidSettingException refused = InvalidSettingException.mustBe(Scope.LISTENER, "echo", Setting.IDLE_TIMEOUT, set.get(),
                "zero or positive");
        InvalidConfigurationPropertyValueException reported = this.sources.asProperty(refused);
        assertThat(reported.getName()).hasToString("sockstate.listeners.echo.idle-timeout");
        assertThat(reported.getValue()).isEqualTo(Duration.ofSeconds(-1));
        assertThat(reported.getReason()).isEqualTo("It must be zero or positive.");
        assertThat(reported.getSuppressed()).containsExactly(refused);
    }

    @Test
    void theSameSettingOfAListenerAndOfAClientIsReportedUnderEachOwnersPath() {
        this.sources.of(Scope.LISTENER, "echo", "listeners.echo.").from(Setting.GROUP, "group", () -> "fast").to((group) -> {
        });
        this.sources.of(Scope.CLIENT, "echo", "clients.echo.").from(Setting.GROUP, "group", () -> "slow").to((group) -> {
        });
        assertThat(property(Scope.LISTENER, "echo", Setting.GROUP)).isEqualTo("sockstate.listeners.echo.group");
        assertThat(property(Scope.CLIENT, "echo", Setting.GROUP)).isEqualTo("sockstate.clients.echo.group");
    }

    @Test
    void aSettingOfARecordMadeWholeIsReportedAgainstThePropertyNamedForIt() {
        SettingSources.Lines group = this.sources.of(Scope.WORKER_GROUP, "poll", "groups.poll.");
        group.named(Setting.BATCH_SIZE, "sockstate.batch-size");
        group.named(Setting.WORKERS, "sockstate.groups.poll.threads");
        assertThat(property(Scope.WORKER_GROUP, "poll", Setting.BATCH_SIZE)).isEqualTo("sockstate.batch-size");
        assertThat(property(Scope.WORKER_GROUP, "poll", Setting.WORKERS)).isEqualTo("sockstate.groups.poll.threads");
    }

    @Test
    void aSettingNoLineMappedIsReportedAgainstItsOwner() {
        assertThat(property(Scope.LISTENER, "echo", Setting.HANDLER)).isEqualTo("sockstate.listeners.echo");
        assertThat(property(Scope.CLIENT, "redis", Setting.CLIENT_NAME)).isEqualTo("sockstate.clients.redis");
        assertThat(property(Scope.WORKER_GROUP, "default", Setting.GROUP_NAME)).isEqualTo("sockstate.workers");
        assertThat(property(Scope.WORKER_GROUP, "poll", Setting.GROUP_NAME)).isEqualTo("sockstate.groups.poll");
    }

    private String property(Scope scope, String owner, Setting setting) {
        return this.sources.asProperty(InvalidSettingException.mustBe(scope, owner, setting, 1, "something else")).getName().toString();
    }
}
