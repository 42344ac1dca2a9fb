package dev.sockstate.port.winsock;

import dev.sockstate.port.Backend;
import dev.sockstate.port.UnixSocketsContract;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The Unix domain sockets contract on the winsock backend bound to the emulator of the Windows API:
 * AF_UNIX stream sockets (Windows 10 build 17063 and later), no datagram ones, no SO_PEERCRED.
 */
@EnabledIfSystemProperty(named = WinsockBackend.LIBRARY_PROPERTY, matches = ".+",
        disabledReason = "the Winsock emulator is built on Linux only")
class WinsockEmulatedUnixSocketsTest extends UnixSocketsContract {

    @Override
    protected Backend backend() {
        return new WinsockBackend();
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
