package dev.sockstate.port.nio;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NotificationPortContract;

/** The notification port contract on the portable backend, on every system. */
class NioNotificationPortTest extends NotificationPortContract {

    @Override
    protected Backend backend() {
        return new NioBackend();
    }
}
