package dev.sockstate.benchmarks;

import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.Protocol;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.util.ArrayList;
import java.util.List;

/** Native server-side sockets on loopback, each with a JDK client that has sent a byte the server never reads. */
final class LoopbackConnections implements AutoCloseable {

    private final NativeSockets sockets;

    private final long[] handles;

    private final List<Socket> clients = new ArrayList<>();

    LoopbackConnections(NativeSockets sockets, int count) throws IOException {
        this.sockets = sockets;
        this.handles = new long[count];
        long listener = sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        try {
            sockets.bind(listener, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            sockets.listen(listener, count);
            InetSocketAddress address = (InetSocketAddress) sockets.localAddress(listener);
            for (int i = 0; i < count; i++) {
                Socket client = new Socket(address.getAddress(), address.getPort());
                this.clients.add(client);
                client.getOutputStream().write(1);
                long handle;
                while ((handle = sockets.accept(listener)) == NativeSockets.NO_SOCKET) {
                    Thread.onSpinWait();
                }
                this.handles[i] = handle;
            }
        }
        finally {
            sockets.close(listener);
        }
    }

    long handle(int index) {
        return this.handles[index];
    }

    int size() {
        return this.handles.length;
    }

    @Override
    public void close() throws IOException {
        for (long handle : this.handles) {
            try {
                this.sockets.close(handle);
            }
            catch (NativeIoException ex) {
                // already closed
            }
        }
        for (Socket client : this.clients) {
            client.close();
        }
    }
}
