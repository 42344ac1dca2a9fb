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
import org.jspecify.annotations.Nullable;

/**
 * The Linux backend: epoll and libc sockets, through the FFM binding on Java 22 and later and JNA's
 * before or when FFM cannot be made ({@link BindingChoice}). Its availability (Linux, a 64-bit JVM,
 * a binding made, an epoll instance that opens) is probed once, and the cause of a failure is kept.
 */
public final class EpollBackend implements Backend {

    /** The backend's name in configuration. */
    public static final String NAME = "epoll";

    /** Whether the backend runs here, probed once a process. */
    private static final ProbedOnce AVAILABILITY = new ProbedOnce(EpollBackend::probe);

    /** The binding the probe found working, which the sockets and ports are given. */
    private static volatile @Nullable EpollCalls calls;

    private static volatile @Nullable EpollSockets sockets;

    @Override
    public String name() {
        return NAME;
    }

    /**
     * Naming a class by its literal does not initialize it: nothing is bound by asking. The FFM
     * binding is not named: an image built ahead of time that cannot reach it by reflection runs on
     * JNA's, whose hints these are.
     */
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
        BindingChoice chosen = BindingChoice.here();
        if (!chosen.made()) {
            return Availability.unavailable(chosen.description(), chosen.cause());
        }
        EpollCalls bound = chosen.calls();
        try {
            int fd = bound.epoll_create1(LinuxAbi.EPOLL_CLOEXEC);
            if (fd < 0) {
                NativeIoException failure = Errno.last(bound, "epoll_create1");
                return Availability.unavailable("epoll_create1 failed: " + failure.getMessage(), failure);
            }
            bound.close(fd);
            EpollPort.loadRarelyUsedClasses(bound);
            calls = bound;
            return Availability.available("Linux " + System.getProperty("os.version") + " with epoll, " + chosen.description());
        }
        catch (LinkageError ex) {
            return Availability.unavailable(bound.binding() + " could not bind libc: " + ex, ex);
        }
    }

    @Override
    public String toString() {
        return NAME;
    }
}
