package dev.sockstate.port.winsock;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NativeSocketsContract;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The native sockets contract on real Winsock. */
@EnabledOnOs(OS.WINDOWS)
@DisabledIfSystemProperty(named = WinsockBackend.LIBRARY_PROPERTY, matches = ".+",
        disabledReason = "the backend is bound to an emulator, not to Windows")
class WinsockNativeSocketsTest extends NativeSocketsContract {

    @Override
    protected Backend backend() {
        return new WinsockBackend();
    }

    /** A datagram a {@code WSASendMsg}, which carries a segment size. */
    @Override
    protected boolean makesSendBatches() {
        return true;
    }

    /** Coalescing is asked for and taken; whether Windows' loopback coalesces is not known (the emulator's rule R10 tests the reading). */
    @Override
    protected boolean loopbackCoalesces() {
        return false;
    }
}
