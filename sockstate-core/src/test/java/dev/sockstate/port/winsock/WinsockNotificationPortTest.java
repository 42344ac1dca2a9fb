package dev.sockstate.port.winsock;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NotificationPortContract;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The notification port contract on the real Windows API (the CI's windows-2022 job, build 20348). */
@EnabledOnOs(OS.WINDOWS)
@DisabledIfSystemProperty(named = WinsockBackend.LIBRARY_PROPERTY, matches = ".+",
        disabledReason = "the backend is bound to an emulator, not to Windows")
class WinsockNotificationPortTest extends NotificationPortContract {

    @Override
    protected Backend backend() {
        return new WinsockBackend();
    }
}
