package dev.sockstate.port;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * A program for a class loader of its own ({@link RecordingClassLoader}): selects a backend by name,
 * accepts a connection, waits for its data on the backend's port and reads it. Given the backend's
 * name, it answers what the peer sent ({@code hello}), or what went wrong.
 */
public final class ServeOnce implements Function<String, String> {

    /** Made by reflection, in the loader under test. */
    public ServeOnce() {
    }

    @Override
    public String apply(String backend) {
        try {
            return serve(backend);
        }
        catch (Exception ex) {
            return ex.toString();
        }
    }

    private static String serve(String backend) throws Exception {
        NativeSockets sockets = Backends.select(backend).sockets();
        long listener = sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        try (NotificationPort port = Backends.select(backend).openPort()) {
            sockets.bind(listener, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            sockets.listen(listener, 4);
            try (Socket peer = new Socket(InetAddress.getLoopbackAddress(), ((InetSocketAddress) sockets.localAddress(listener)).getPort())) {
                long connection;
                while ((connection = sockets.accept(listener)) == NativeSockets.NO_SOCKET) {
                    Thread.onSpinWait();
                }
                try {
                    RegistrationBatch changes = new RegistrationBatch(1);
                    changes.enable(connection, 7, Events.IN, Trigger.LEVEL_ONESHOT);
                    peer.getOutputStream().write("hello".getBytes(StandardCharsets.UTF_8));
                    NotificationBatch batch = new NotificationBatch(1);
                    if (port.process(changes, batch, 5_000) != 1 || batch.key(0) != 7) {
                        return "no notification";
                    }
                    NativeBuffer buffer = sockets.allocate(16);
                    int read = sockets.recv(connection, buffer);
                    buffer.buffer().flip();
                    return (read > 0) ? StandardCharsets.UTF_8.decode(buffer.buffer()).toString() : "nothing read";
                }
                finally {
                    sockets.close(connection);
                }
            }
        }
        finally {
            sockets.close(listener);
        }
    }
}
