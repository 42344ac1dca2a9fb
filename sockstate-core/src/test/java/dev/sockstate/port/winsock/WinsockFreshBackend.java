package dev.sockstate.port.winsock;

import dev.sockstate.port.Availability;
import dev.sockstate.port.Backend;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;

/**
 * The winsock backend over the emulator with sockets of its own, made when this is: they ask the
 * emulated build afresh what it has (UDP segmentation offload and receive coalescing, after
 * {@link WinsockEmulator#emu_set_udp_offload}), which the backend's shared sockets ask once for the
 * whole JVM, as they should on a real Windows.
 */
public final class WinsockFreshBackend implements Backend {

    private final WinsockBackend backend = new WinsockBackend();

    private final WinsockSockets sockets = new WinsockSockets(new WinsockNative.Binding());

    @Override
    public String name() {
        return this.backend.name();
    }

    @Override
    public Availability availability() {
        return this.backend.availability();
    }

    @Override
    public boolean isNativeToThisSystem() {
        return this.backend.isNativeToThisSystem();
    }

    @Override
    public NotificationPort openPort() throws NativeIoException {
        return WinsockPort.open(this.sockets);
    }

    @Override
    public NativeSockets sockets() {
        return this.sockets;
    }

    @Override
    public java.util.List<String> nativeBindings() {
        return this.backend.nativeBindings();
    }

    @Override
    public boolean edgeOnEveryArrival() {
        return this.backend.edgeOnEveryArrival();
    }

    @Override
    public boolean notifiesErrors() {
        return this.backend.notifiesErrors();
    }

    @Override
    public boolean notifiesHangups() {
        return this.backend.notifiesHangups();
    }

    @Override
    public boolean appliesChangesWithDequeue() {
        return this.backend.appliesChangesWithDequeue();
    }
}
