package dev.sockstate.port.winsock;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NativeSocketsContract;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/** The native sockets contract on the winsock backend bound to the emulator of the Windows API. */
@EnabledIfSystemProperty(named = WinsockBackend.LIBRARY_PROPERTY, matches = ".+",
        disabledReason = "the Winsock emulator is built on Linux only")
class WinsockEmulatedNativeSocketsTest extends NativeSocketsContract {

    @Override
    protected Backend backend() {
        return new WinsockBackend();
    }

    /** A datagram a {@code WSASendMsg}, which carries a segment size. */
    @Override
    protected boolean makesSendBatches() {
        return true;
    }
}
