package dev.sockstate.port.winsock;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NotificationPortContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The notification port contract on the emulator's lenient, epoll-like mode: the contract holds
 * the guarantees every backend keeps, so it passes on the mode that offers more as it does on the
 * strict one ({@link WinsockEmulatedNotificationPortTest}).
 */
@EnabledIfSystemProperty(named = WinsockBackend.LIBRARY_PROPERTY, matches = ".+",
        disabledReason = "the Winsock emulator is built on Linux only")
class WinsockLenientEmulatedNotificationPortTest extends NotificationPortContract {

    private final WinsockEmulator emulator = WinsockEmulator.load();

    @Override
    protected Backend backend() {
        return new WinsockBackend();
    }

    @BeforeAll
    void makePortsAndSocketsLenient() {
        this.emulator.emu_set_mode(WinsockEmulator.LENIENT);
    }

    @AfterAll
    void restoreTheMode() {
        this.emulator.emu_reset();
    }
}
