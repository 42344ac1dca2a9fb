package dev.sockstate.port.epoll;

import dev.sockstate.port.Backend;
import dev.sockstate.port.UnixSocketsContract;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The Unix domain sockets contract on Linux: stream and datagram sockets, SO_PEERCRED. */
@EnabledOnOs(OS.LINUX)
class EpollUnixSocketsTest extends UnixSocketsContract {

    @Override
    protected Backend backend() {
        return new EpollBackend();
    }

    @Override
    protected boolean hasUnixDatagrams() {
        return true;
    }

    @Override
    protected boolean tellsPeerCredentials() {
        return true;
    }
}
