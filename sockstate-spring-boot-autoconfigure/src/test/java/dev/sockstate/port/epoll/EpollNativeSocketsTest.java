package dev.sockstate.port.epoll;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NativeSocketsContract;

/** The native sockets contract on Linux. */
class EpollNativeSocketsTest extends NativeSocketsContract {

    @Override
    protected Backend backend() {
        return new EpollBackend();
    }
}
