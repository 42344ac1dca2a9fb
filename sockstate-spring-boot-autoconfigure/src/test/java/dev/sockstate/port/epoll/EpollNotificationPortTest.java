package dev.sockstate.port.epoll;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NotificationPortContract;

/** The notification port contract on Linux epoll. */
class EpollNotificationPortTest extends NotificationPortContract {

    @Override
    protected Backend backend() {
        return new EpollBackend();
    }
}
