package dev.sockstate.benchmarks.e2e;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The idle load: opens many connections, each sending one small message and reading its echo (so
 * the server has accepted, registered and served it), then holds them idle and reads how much the
 * server's resident memory grew, after a full collection in the server before and after.
 */
final class IdleConnections {

    /** What one run measured. */
    record Result(int connections, long residentBefore, long residentAfter) {

        double bytesPerConnection() {
            return (double) (this.residentAfter - this.residentBefore) / this.connections;
        }
    }

    private IdleConnections() {
    }

    /**
     * @param server the server process
     * @param count connections to hold
     * @param settleMillis how long to hold them before measuring
     * @return what was measured
     * @throws Exception when connections cannot be made
     */
    static Result run(ServerProcess server, int count, long settleMillis) throws Exception {
        server.gc();
        long before = server.residentBytes();
        List<SocketChannel> channels = new ArrayList<>(count);
        ByteBuffer out = ByteBuffer.allocateDirect(16);
        ByteBuffer in = ByteBuffer.allocateDirect(16);
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port);
        try {
            for (int i = 0; i < count; i++) {
                SocketChannel channel = SocketChannel.open(address);
                channels.add(channel);
                out.clear();
                channel.write(out);
                in.clear();
                while (in.hasRemaining()) {
                    if (channel.read(in) < 0) {
                        throw new IOException("connection " + i + " was closed by " + server.kind.label);
                    }
                }
            }
            Thread.sleep(settleMillis);
            server.gc();
            long after = server.residentBytes();
            return new Result(count, before, after);
        }
        finally {
            for (SocketChannel channel : channels) {
                channel.close();
            }
        }
    }
}
