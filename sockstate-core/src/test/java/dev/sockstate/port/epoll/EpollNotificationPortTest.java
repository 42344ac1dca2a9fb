package dev.sockstate.port.epoll;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NotificationPortContract;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The notification port contract on Linux epoll. */
@EnabledOnOs(OS.LINUX)
class EpollNotificationPortTest extends NotificationPortContract {

    @Override
    protected Backend backend() {
        return new EpollBackend();
    }
}
