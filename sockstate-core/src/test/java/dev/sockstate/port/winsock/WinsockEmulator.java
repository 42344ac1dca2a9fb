package dev.sockstate.port.winsock;

import com.sun.jna.Library;
import com.sun.jna.Native;

/**
 * The test hooks of the Winsock emulator ({@code src/test/c/winsock_emulator.c}), which exports them
 * beside the Windows functions, bound with JNA: they switch the emulator between its strict mode
 * (Windows as documented, the default) and its lenient, epoll-like one. The hooks exist only where
 * the winsock backend is bound to the emulator ({@link #isBound()}); the top of the C file
 * documents each. Call {@link #emu_reset()} after a test that used them.
 */
public interface WinsockEmulator extends Library {

    /** Mode: Windows as Microsoft documents it, the default. */
    int STRICT = 0;

    /** Mode: the emulator's epoll-like semantics. */
    int LENIENT = 1;

    /** @return whether the winsock backend is bound to the emulator in this JVM */
    static boolean isBound() {
        String library = System.getProperty(WinsockBackend.LIBRARY_PROPERTY);
        return library != null && !library.isBlank();
    }

    /**
     * @return the hooks of the emulator the backend is bound to
     * @throws IllegalStateException when the backend is not bound to the emulator
     */
    static WinsockEmulator load() {
        if (!isBound()) {
            throw new IllegalStateException("The winsock backend is not bound to the emulator: set "
                    + WinsockBackend.LIBRARY_PROPERTY);
        }
        return Native.load(System.getProperty(WinsockBackend.LIBRARY_PROPERTY), WinsockEmulator.class);
    }

    /**
     * Switches the mode of the ports and sockets created from now on.
     * @param mode {@link #STRICT} or {@link #LENIENT}
     * @return the previous mode, or -1 for an unknown mode
     */
    int emu_set_mode(int mode);

    /** @return the mode new ports and sockets take */
    int emu_mode();

    /** Restores the mode read from the environment when the library loaded. */
    void emu_reset();
}
