package dev.sockstate.port.winsock;

import dev.sockstate.port.Availability;
import dev.sockstate.port.Backend;
import dev.sockstate.port.BackendUnavailableException;
import dev.sockstate.port.Backends;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.ProbedOnce;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The Windows backend: {@code ProcessSocketNotifications} on an I/O completion port, and Winsock
 * sockets, through JNA. It runs on 64-bit Windows build {@value #MINIMUM_BUILD} or later (Windows
 * Server 2022, Windows 11), where ws2_32 exports that function. Its availability is probed once and
 * the cause of a failure kept: on older Windows the function is missing and the backend says so.
 * <p>
 * When the system property {@value #LIBRARY_PROPERTY} names a library, the backend binds that
 * library instead of ws2_32 and kernel32 (see {@link WinsockNative}) on any operating system: this is
 * how the tests run it on an emulator of the API. {@code auto} still picks it only on Windows.
 */
public final class WinsockBackend implements Backend {

    /** The backend's name in configuration. */
    public static final String NAME = "winsock";

    /** System property naming the library to bind instead of ws2_32 (and of kernel32, unless {@link #KERNEL32_PROPERTY} is set). */
    public static final String LIBRARY_PROPERTY = "sockstate.winsock.library";

    /** System property naming the library to bind instead of kernel32. */
    public static final String KERNEL32_PROPERTY = "sockstate.winsock.kernel32";

    /** The first Windows build with {@code ProcessSocketNotifications}. */
    public static final int MINIMUM_BUILD = 20348;

    private static final String REQUIREMENT = "winsock needs Windows build " + MINIMUM_BUILD
            + " or later (Windows Server 2022, Windows 11)";

    /** The binding of Winsock the backend runs on, made once by the probe: the one line a binding changes. */
    private static final Supplier<WinsockCalls> BINDING = WinsockNative.Binding::new;

    /** Whether the backend runs here, probed once a process. */
    private static final ProbedOnce AVAILABILITY = new ProbedOnce(
            () -> probe(System.getProperty(LIBRARY_PROPERTY), System.getProperty("os.name", "")));

    /** The binding the probe found working, which the sockets and ports are given. */
    private static volatile @Nullable WinsockCalls calls;

    private static volatile @Nullable WinsockSockets sockets;

    @Override
    public String name() {
        return NAME;
    }

    /** Naming a class by its literal does not initialize it: nothing is bound by asking. */
    @Override
    public List<String> nativeBindings() {
        return List.of(WinsockNative.class.getName(), WinsockNative.Kernel32.class.getName(),
                WinsockNative.Notifications.class.getName());
    }

    /**
     * Windows documents a rising edge, raised again only once the socket was read until
     * {@code WSAEWOULDBLOCK}; it does not promise an edge per arrival, on any build.
     */
    @Override
    public boolean edgeOnEveryArrival() {
        return false;
    }

    /** One {@code ProcessSocketNotifications} call applies a worker's re-arms and dequeues its next batch. */
    @Override
    public boolean appliesChangesWithDequeue() {
        return true;
    }

    @Override
    public boolean isNativeToThisSystem() {
        return isWindows(System.getProperty("os.name", ""));
    }

    @Override
    public Availability availability() {
        return AVAILABILITY.get();
    }

    @Override
    public NotificationPort openPort() throws NativeIoException {
        return WinsockPort.open(requireSockets());
    }

    @Override
    public NativeSockets sockets() {
        return requireSockets();
    }

    private WinsockSockets requireSockets() {
        Availability result = availability();
        if (!result.available()) {
            throw new BackendUnavailableException(NAME, "The winsock backend is unavailable: " + result.reason(), result.cause());
        }
        WinsockSockets current = sockets;
        if (current == null) {
            synchronized (WinsockBackend.class) {
                current = sockets;
                if (current == null) {
                    current = new WinsockSockets(calls);
                    sockets = current;
                }
            }
        }
        return current;
    }

    private static boolean isWindows(String osName) {
        return osName.toLowerCase(Locale.ROOT).startsWith("windows");
    }

    /**
     * Finds out whether the backend runs here: on Windows, or anywhere when an emulator library is
     * named; then whether JNA binds the library, it has {@code ProcessSocketNotifications},
     * {@code WSAStartup} succeeds (called here, once for the process) and a completion port opens.
     * @param emulator the value of {@value #LIBRARY_PROPERTY}, or {@code null}
     * @param osName the operating system's name
     * @return the availability, with the reason and cause of a failure
     */
    static Availability probe(@Nullable String emulator, String osName) {
        boolean emulated = emulator != null && !emulator.isBlank();
        if (!emulated && !isWindows(osName)) {
            return Availability.unavailable(REQUIREMENT + ", this is " + Backends.system(), null);
        }
        try {
            if (com.sun.jna.Native.POINTER_SIZE != 8) {
                return Availability.unavailable("winsock needs a 64-bit JVM, this one has "
                        + (com.sun.jna.Native.POINTER_SIZE * 8) + "-bit pointers", null);
            }
            WinsockCalls bound = BINDING.get();
            try {
                bound.lookUpSocketNotifications();
            }
            catch (UnsatisfiedLinkError ex) {
                return Availability.unavailable(WinsockNative.Notifications.FUNCTION + " is missing from " + bound.socketLibrary()
                        + ": " + REQUIREMENT + ", this is " + Backends.system(), ex);
            }
            ByteBuffer data = ByteBuffer.allocateDirect(WinsockNative.WSADATA_SIZE);
            int started = bound.WSAStartup(WinsockNative.WINSOCK_VERSION, bound.addressOf(data));
            if (started != 0) {
                NativeIoException failure = WsaError.exception("WSAStartup", started);
                return Availability.unavailable(failure.getMessage(), failure);
            }
            long port = bound.CreateIoCompletionPort(WinsockNative.INVALID_HANDLE_VALUE, 0, 0, 0);
            if (port == 0) {
                NativeIoException failure = WsaError.last(bound, "CreateIoCompletionPort");
                return Availability.unavailable(failure.getMessage(), failure);
            }
            bound.CloseHandle(port);
            // A process out of handles cannot open a class file: the classes of the error paths
            // (accept refused with WSAEMFILE, say) are loaded now.
            WsaError.exception("accept", WsaError.WSAEMFILE).error().ordinal();
            calls = bound;
            String system = emulated ? "the Winsock emulator " + emulator + " on " + Backends.system() : Backends.system();
            return Availability.available(system + " with " + WinsockNative.Notifications.FUNCTION + ", JNA "
                    + com.sun.jna.Native.VERSION);
        }
        catch (LinkageError ex) {
            return Availability.unavailable("JNA could not bind Winsock (is net.java.dev.jna:jna on the class path?): " + ex, ex);
        }
    }

    @Override
    public String toString() {
        return NAME;
    }
}
