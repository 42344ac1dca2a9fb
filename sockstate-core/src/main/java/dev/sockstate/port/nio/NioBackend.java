package dev.sockstate.port.nio;

import dev.sockstate.port.Availability;
import dev.sockstate.port.Backend;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.ProbedOnce;
import java.io.IOException;
import java.nio.channels.Selector;

/**
 * The portable backend: a JDK {@link Selector} as the notification port and JDK channels as the
 * sockets, on every system the JDK runs on, without JNA or any native library of its own (so it runs
 * where JNA's cannot load, a {@code noexec} temporary directory say). Never the system's own, but
 * portable: {@code auto} picks it where no native backend runs (macOS, Windows before build 20348,
 * a native backend whose probe failed), saying why in one warning; name it ({@code nio}) to use it
 * anywhere. Its availability is a selector that opens, probed once.
 * <p>
 * It keeps the portable contract, with these differences from the native backends, each asked
 * through this class: no edge for each arrival ({@link #edgeOnEveryArrival()} is false: edges are
 * emulated, see {@link NioPort}), errors learnt by reading, never notified as ERR
 * ({@link #notifiesErrors()}), and changes applied at once rather than with the next dequeue.
 */
public final class NioBackend implements Backend {

    /** The backend's name in configuration. */
    public static final String NAME = "nio";

    /** Whether the backend runs here, probed once a process. */
    private static final ProbedOnce AVAILABILITY = new ProbedOnce(NioBackend::probe);

    private static final NioSockets SOCKETS = new NioSockets();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Availability availability() {
        return AVAILABILITY.get();
    }

    @Override
    public boolean isNativeToThisSystem() {
        return false;
    }

    @Override
    public boolean isPortable() {
        return true;
    }

    @Override
    public NotificationPort openPort() throws NativeIoException {
        return NioPort.open(SOCKETS.table());
    }

    @Override
    public NativeSockets sockets() {
        return SOCKETS;
    }

    /**
     * A selector reports readiness only, and what it found may be stale when handed out: a FIN shows
     * as IN to a registration that asks for IN, and the read that returns the end of the stream tells
     * it; one for HANGUP alone hears nothing (a probe of stale readiness would take data for a FIN).
     */
    @Override
    public boolean notifiesHangups() {
        return false;
    }

    /** A selector reports readiness only: a reset shows as IN, and the read names it. */
    @Override
    public boolean notifiesErrors() {
        return false;
    }

    private static Availability probe() {
        try (Selector selector = Selector.open()) {
            NioSockets.loadRarelyUsedClasses();
            return Availability.available("JDK " + Runtime.version() + " selector " + selector.provider().getClass().getName());
        }
        catch (IOException | RuntimeException ex) {
            return Availability.unavailable("A JDK selector does not open: " + ex, ex);
        }
    }

    @Override
    public String toString() {
        return NAME;
    }
}
