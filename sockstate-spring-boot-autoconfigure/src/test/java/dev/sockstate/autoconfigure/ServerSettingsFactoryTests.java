package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.Setting;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/** The runtime's settings reported against the properties they come from, through one table. */
class ServerSettingsFactoryTests {

    @Test
    void everySettingOfTheRuntimeIsReportedAgainstAProperty() {
        for (Setting setting : Setting.values()) {
            String owner = (setting.scope() == Setting.Scope.LISTENER) ? "echo" : "poll";
            InvalidConfigurationPropertyValueException reported = ServerSettingsFactory
                    .asProperty(InvalidSettingException.mustBe(owner, setting, 1, "something else"));
            assertThat(reported.getName()).as("%s", setting).startsWith("sockstate.");
            assertThat(reported.getSuppressed()).singleElement().isInstanceOf(InvalidSettingException.class);
        }
    }

    @Test
    void listenerSettingsAreReportedUnderTheListener() {
        assertThat(property("echo", Setting.PORT_NUMBER)).isEqualTo("sockstate.listeners.echo.port");
        assertThat(property("echo", Setting.MAX_PENDING_WRITE_BYTES)).isEqualTo("sockstate.listeners.echo.max-pending-write-bytes");
        assertThat(property("echo", Setting.ABORT_PENDING_WRITE_BYTES)).isEqualTo("sockstate.listeners.echo.abort-pending-write-bytes");
        assertThat(property("echo", Setting.LISTENER_NAME)).isEqualTo("sockstate.listeners.echo");
    }

    @Test
    void workerGroupSettingsAreReportedUnderTheirGroupOrAsSharedProperties() {
        assertThat(property("default", Setting.WORKERS)).isEqualTo("sockstate.workers.threads");
        assertThat(property("poll", Setting.WORKERS)).isEqualTo("sockstate.groups.poll.threads");
        assertThat(property("poll", Setting.READ_BUFFER_SIZE)).isEqualTo("sockstate.groups.poll.read-buffer-size");
        assertThat(property("poll", Setting.BATCH_SIZE)).isEqualTo("sockstate.batch-size");
        assertThat(property("default", Setting.DEQUEUE_TIMEOUT)).isEqualTo("sockstate.dequeue-timeout");
    }

    @Test
    void clientSettingsAreReportedUnderTheClientThoseItSharesWithListenersToo() {
        assertThat(property("redis", Setting.ADDRESS)).isEqualTo("sockstate.clients.redis.address");
        assertThat(property("redis", Setting.POOL_SIZE)).isEqualTo("sockstate.clients.redis.pool.size");
        assertThat(property("redis", Setting.CLIENT_NAME)).isEqualTo("sockstate.clients.redis");
        assertThat(ServerSettingsFactory.asProperty(InvalidSettingException.mustBe(Setting.Scope.CLIENT, "redis",
                Setting.IDLE_TIMEOUT, -1, "zero or positive")).getName().toString()).isEqualTo("sockstate.clients.redis.idle-timeout");
    }

    private static String property(String owner, Setting setting) {
        return ServerSettingsFactory.asProperty(InvalidSettingException.mustBe(owner, setting, 1, "something else")).getName()
                .toString();
    }
}
