package dev.sockstate.port.winsock;

import dev.sockstate.port.ForwardingBackend;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;

/**
 * The winsock backend over the emulator with sockets of its own, made when this is: they ask the
 * emulated build afresh what it has (UDP segmentation offload and receive coalescing, after
 * {@link WinsockEmulator#emu_set_udp_offload}), which the backend's shared sockets ask once for the
 * whole JVM, as they should on a real Windows.
 */
public final class WinsockFreshBackend extends ForwardingBackend {

    private final WinsockSockets sockets = new WinsockSockets(new WinsockNative.Binding());

    public WinsockFreshBackend() {
        super(new WinsockBackend());
    }

    @Override
    public java.util.List<String> nativeBindings() {
        return new WinsockBackend().nativeBindings();
    }

    @Override
    public NotificationPort openPort() throws NativeIoException {
        return WinsockPort.open(this.sockets);
    }

    @Override
    public NativeSockets sockets() {
        return this.sockets;
    }
}
