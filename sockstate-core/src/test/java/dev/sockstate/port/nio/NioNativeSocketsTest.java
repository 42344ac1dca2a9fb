package dev.sockstate.port.nio;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NativeSocketsContract;

/** The native sockets contract on the portable backend's JDK channels, on every system. */
class NioNativeSocketsTest extends NativeSocketsContract {

    @Override
    protected Backend backend() {
        return new NioBackend();
    }
}
