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
 * the server has accepted, registered and served it), then holds them idle and reads, after a full
 * collection in the server before and after, how much the server's memory grew: the heap in use
 * plus direct and other native buffers (what the server holds per connection), and the resident
 * set (which also moves with pages the collector and allocator keep or return, so it is noisy at a
 * hundred bytes a connection).
 */
final class IdleConnections {

    /** What one run measured. */
    record Result(int connections, ServerProcess.Memory before, ServerProcess.Memory after, long residentBefore,
            long residentAfter) {

        /** @return growth of heap in use plus native buffers, per connection */
        double bytesPerConnection() {
            return (double) (this.after.total() - this.before.total()) / this.connections;
        }

        /** @return growth of the resident set, per connection */
        double residentBytesPerConnection() {
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
        ServerProcess.Memory before = server.gc();
        long residentBefore = server.residentBytes();
        List<SocketChannel> channels = new ArrayList<>(count);
        ByteBuffer out = ByteBuffer.allocateDirect(16);
        // A line's end last, for servers that frame lines; raw echo servers send it back all the same.
        out.put(15, (byte) '\n');
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
            ServerProcess.Memory after = server.gc();
            return new Result(count, before, after, residentBefore, server.residentBytes());
        }
        finally {
            for (SocketChannel channel : channels) {
                channel.close();
            }
        }
    }
}
