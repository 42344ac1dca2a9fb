package dev.sockstate.port.epoll;

import dev.sockstate.port.Availability;
import dev.sockstate.port.Backend;
import dev.sockstate.port.BackendUnavailableException;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.ProbedOnce;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The Linux backend: epoll and libc sockets through JNA. Its availability (Linux, a 64-bit JVM,
 * JNA loading, an epoll instance that opens) is probed once, and the cause of a failure is kept.
 */
public final class EpollBackend implements Backend {

    /** The backend's name in configuration. */
    public static final String NAME = "epoll";

    /** The binding of libc the backend runs on, made once by the probe: the one line a binding changes. */
    private static final Supplier<EpollCalls> BINDING = LinuxNative.Binding::new;

    /** Whether the backend runs here, probed once a process. */
    private static final ProbedOnce AVAILABILITY = new ProbedOnce(EpollBackend::probe);

    /** The binding the probe found working, which the sockets and ports are given. */
    private static volatile EpollCalls calls;

    private static volatile EpollSockets sockets;

    @Override
    public String name() {
        return NAME;
    }

    /** Naming a class by its literal does not initialize it: nothing is bound by asking. */
    @Override
    public List<String> nativeBindings() {
        return List.of(LinuxNative.class.getName());
    }

    /** epoll raises an {@code EPOLLET} edge for each arrival of data, read or not. */
    @Override
    public boolean edgeOnEveryArrival() {
        return true;
    }

    @Override
    public boolean isNativeToThisSystem() {
        return isLinux();
    }

    @Override
    public Availability availability() {
        return AVAILABILITY.get();
    }

    @Override
    public NotificationPort openPort() throws NativeIoException {
        return EpollPort.open(requireSockets());
    }

    @Override
    public NativeSockets sockets() {
        return requireSockets();
    }

    private EpollSockets requireSockets() {
        Availability result = availability();
        if (!result.available()) {
            throw new BackendUnavailableException(NAME, "The epoll backend is unavailable: " + result.reason(), result.cause());
        }
        EpollSockets current = sockets;
        if (current == null) {
            synchronized (EpollBackend.class) {
                current = sockets;
                if (current == null) {
                    current = new EpollSockets(calls);
                    sockets = current;
                }
            }
        }
        return current;
    }

    private static boolean isLinux() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux");
    }

    private static Availability probe() {
        if (!isLinux()) {
            return Availability.unavailable("epoll needs Linux, this is " + System.getProperty("os.name"), null);
        }
        try {
            if (com.sun.jna.Native.POINTER_SIZE != 8 || com.sun.jna.Native.LONG_SIZE != 8) {
                return Availability.unavailable("epoll needs a 64-bit JVM, this one has "
                        + (com.sun.jna.Native.POINTER_SIZE * 8) + "-bit pointers", null);
            }
            EpollCalls bound = BINDING.get();
            int fd = bound.epoll_create1(LinuxNative.EPOLL_CLOEXEC);
            if (fd < 0) {
                NativeIoException failure = Errno.last(bound, "epoll_create1");
                return Availability.unavailable("epoll_create1 failed: " + failure.getMessage(), failure);
            }
            bound.close(fd);
            EpollPort.loadRarelyUsedClasses(bound);
            calls = bound;
            return Availability.available("Linux " + System.getProperty("os.version") + " with epoll, JNA "
                    + com.sun.jna.Native.VERSION);
        }
        catch (LinkageError ex) {
            return Availability.unavailable("JNA could not bind libc (is net.java.dev.jna:jna on the class path?): " + ex, ex);
        }
    }

    @Override
    public String toString() {
        return NAME;
    }
}
