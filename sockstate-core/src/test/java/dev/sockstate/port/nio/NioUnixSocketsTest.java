package dev.sockstate.port.nio;

import dev.sockstate.port.Backend;
import dev.sockstate.port.UnixSocketsContract;

/** The Unix domain sockets contract on the JDK's channels: stream sockets only, no credentials. */
class NioUnixSocketsTest extends UnixSocketsContract {

    @Override
    protected Backend backend() {
        return new NioBackend();
    }

    @Override
    protected boolean hasUnixDatagrams() {
        return false;
    }

    @Override
    protected boolean tellsPeerCredentials() {
        return false;
    }
}
