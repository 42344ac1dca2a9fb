package dev.sockstate.port.winsock;

import com.sun.jna.Library;
import com.sun.jna.Native;

/**
 * The test hooks of the Winsock emulator ({@code src/test/c/winsock_emulator.c}), which exports them
 * beside the Windows functions, bound with JNA. With them a test makes the emulated Windows do
 * what Windows may do and Linux rarely does: refuse a send with {@code WSAENOBUFS}, fail a whole
 * {@code ProcessSocketNotifications} call, and it switches the emulator between its strict mode
 * (Windows as documented, the default) and its lenient, epoll-like one. The hooks exist only where
 * the winsock backend is bound to the emulator ({@link #isBound()}); the top of the C file
 * documents each. Call {@link #emu_reset()} after a test that used them.
 * <p>
 * Handles are passed as {@code long}: a {@code SOCKET} is the socket's handle as the backend's
 * {@link dev.sockstate.port.NativeSockets} return it, a port {@link #ANY_PORT} (the tests never see
 * a port's native handle).
 */
public interface WinsockEmulator extends Library {

    /** Mode: Windows as Microsoft documents it, the default. */
    int STRICT = 0;

    /** Mode: the emulator's epoll-like semantics. */
    int LENIENT = 1;

    /** {@code INVALID_SOCKET}: for {@link #emu_fail_next_sends}, any socket. */
    long ANY_SOCKET = -1L;

    /** A null port handle: for {@link #emu_reject_next_batch}, any port. */
    long ANY_PORT = 0L;

    /** {@code WSAENOBUFS}: no buffer space, as a non-blocking send may fail on Windows. */
    int WSAENOBUFS = WsaError.WSAENOBUFS;

    /** {@code WSAEWOULDBLOCK}: the socket takes nothing now. */
    int WSAEWOULDBLOCK = WsaError.WSAEWOULDBLOCK;

    /** {@code ERROR_NOT_ENOUGH_MEMORY}: a whole call failing on a transient memory condition. */
    int ERROR_NOT_ENOUGH_MEMORY = WsaError.ERROR_NOT_ENOUGH_MEMORY;

    /** {@code ERROR_INVALID_PARAMETER}: a whole call failing on invalid input. */
    int ERROR_INVALID_PARAMETER = WsaError.ERROR_INVALID_PARAMETER;

    /** {@code ERROR_INVALID_HANDLE}: a whole call failing on a bad handle. */
    int ERROR_INVALID_HANDLE = WsaError.ERROR_INVALID_HANDLE;

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

    /**
     * Makes the next sends (send and sendto) of a socket fail, sending nothing.
     * @param socket the socket, or {@link #ANY_SOCKET}
     * @param count how many sends fail; zero cancels
     * @param wsaError the code they fail with, such as {@link #WSAENOBUFS}
     * @return 0, or -1 for an unknown socket or a bad argument
     */
    int emu_fail_next_sends(long socket, int count, int wsaError);

    /**
     * Makes every send (send and sendto) of a socket fail for a while, sending nothing: a shortage
     * that lasts, whatever the number of tries.
     * @param socket the socket
     * @param millis how long from now; zero cancels
     * @param wsaError the code they fail with, such as {@link #WSAENOBUFS}
     * @return 0, or -1 for an unknown socket or a bad argument
     */
    int emu_fail_sends_for(long socket, int millis, int wsaError);

    /**
     * Makes the next {@code ProcessSocketNotifications} calls that carry registrations fail whole:
     * nothing applied, nothing dequeued.
     * @param port the port's handle, or {@link #ANY_PORT}
     * @param count how many calls fail; zero cancels
     * @param code the code they return, such as {@link #ERROR_NOT_ENOUGH_MEMORY}
     * @return 0, or -1 for a bad argument (zero, or a timeout code)
     */
    int emu_reject_next_batch(long port, int count, int code);

    /**
     * Makes every {@code ProcessSocketNotifications} call with a registration of {@code socket} fail
     * whole, until called again with code 0.
     * @param socket the socket
     * @param code the code the calls return, or 0 to stop
     * @return 0, or -1 for a bad argument or too many sockets named
     */
    int emu_reject_batches_with(long socket, int code);

    /**
     * Makes the emulator a Windows build with or without UDP segmentation offload and receive coalescing
     * ({@code UDP_SEND_MSG_SIZE}, {@code UDP_RECV_MAX_COALESCED_SIZE}: Windows 10 2004 and later); without,
     * both options fail with {@code WSAENOPROTOOPT}. Sockets that already asked keep their answer: see
     * {@link WinsockFreshBackend}.
     * @param on 1 for a build with them (the default), 0 for one without
     * @return the previous setting, or -1 for another value
     */
    int emu_set_udp_offload(int on);

    /** Cancels every hook and restores the mode read from the environment when the library loaded. */
    void emu_reset();
}
