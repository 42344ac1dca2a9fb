package dev.sockstate.port.winsock;

import dev.sockstate.port.Backend;
import dev.sockstate.port.UnixSocketsContract;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The Unix domain sockets contract on real Winsock (Windows 10 build 17063 and later): stream sockets only, no SO_PEERCRED. */
@EnabledOnOs(OS.WINDOWS)
@DisabledIfSystemProperty(named = WinsockBackend.LIBRARY_PROPERTY, matches = ".+",
        disabledReason = "the backend is bound to an emulator, not to Windows")
class WinsockUnixSocketsTest extends UnixSocketsContract {

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
