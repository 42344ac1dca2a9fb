package dev.sockstate.port.winsock;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NotificationPortContract;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The notification port contract on the winsock backend bound to the emulator of the Windows API
 * ({@code src/test/c/winsock_emulator.c}), which the Linux build compiles and names in
 * {@value WinsockBackend#LIBRARY_PROPERTY}; in the mode the environment gives it, strict (Windows
 * as documented) unless {@code SOCKSTATE_WINSOCK_EMULATOR=lenient}.
 */
@EnabledIfSystemProperty(named = WinsockBackend.LIBRARY_PROPERTY, matches = ".+",
        disabledReason = "the Winsock emulator is built on Linux only")
class WinsockEmulatedNotificationPortTest extends NotificationPortContract {

    @Override
    protected Backend backend() {
        return new WinsockBackend();
    }
}
