package dev.sockstate.port.epoll;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NativeSocketsContract;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The native sockets contract on Linux. */
@EnabledOnOs(OS.LINUX)
class EpollNativeSocketsTest extends NativeSocketsContract {

    @Override
    protected Backend backend() {
        return new EpollBackend();
    }
}
