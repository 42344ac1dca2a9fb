package dev.sockstate.benchmarks.e2e;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The connection-rate load: threads that each connect, send 64 bytes, read the echo and close, over
 * and over for a bounded time. The client closes abortively ({@code SO_LINGER} 0: a reset, no FIN
 * exchange and no TIME_WAIT), so that what is measured is the server's accept, echo and close, not
 * the client kernel's search for a free port among tens of thousands of TIME_WAIT entries, whose
 * cost grows through a run (and a server measured first, before the entries pile up, would look
 * twice as fast as the others). The server sees the reset as a hang-up or error on the connection
 * and closes it, as it would a peer that went away.
 */
final class ConnectionRate {

    /**
     * What one run measured.
     * @param serverSystemNanos the part of {@code serverCpuNanos} spent in the kernel
     */
    record Result(long connections, double seconds, long serverCpuNanos, long serverSystemNanos, long errors) {

        double connectionsPerSecond() {
            return this.connections / this.seconds;
        }

        double cpuMicrosPerConnection() {
            return (this.connections == 0) ? Double.NaN : this.serverCpuNanos / 1000.0 / this.connections;
        }

        /** @return the server's user-space CPU a connection: its own code, its binding's and its runtime's */
        double userMicrosPerConnection() {
            return (this.connections == 0) ? Double.NaN : (this.serverCpuNanos - this.serverSystemNanos) / 1000.0 / this.connections;
        }
    }

    private static final int MESSAGE = 64;

    private volatile int phase;

    private ConnectionRate() {
    }

    /**
     * @param port the server's loopback port
     * @param threads client threads, each with one connection at a time
     * @param warmupMillis load before measuring
     * @param measureMillis the measured window
     * @param serverCpu reads the server's CPU time
     * @param serverSystem reads the server's CPU time in the kernel
     * @return what was measured
     * @throws InterruptedException when interrupted
     */
    static Result run(int port, int threads, long warmupMillis, long measureMillis, LongSupplier serverCpu,
            LongSupplier serverSystem) throws InterruptedException {
        return new ConnectionRate().drive(port, threads, warmupMillis, measureMillis, serverCpu, serverSystem);
    }

    private Result drive(int port, int threadCount, long warmupMillis, long measureMillis, LongSupplier serverCpu,
            LongSupplier serverSystem) throws InterruptedException {
        AtomicLong measured = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        InetAddress loopback = InetAddress.getLoopbackAddress();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < threadCount; i++) {
            Thread thread = new Thread(() -> loop(new InetSocketAddress(loopback, port), measured, errors), "rate-" + i);
            threads.add(thread);
            thread.start();
        }
        Thread.sleep(warmupMillis);
        long cpuStart = serverCpu.getAsLong();
        long systemStart = serverSystem.getAsLong();
        long start = System.nanoTime();
        this.phase = 1;
        Thread.sleep(measureMillis);
        this.phase = 2;
        long elapsed = System.nanoTime() - start;
        long cpu = serverCpu.getAsLong() - cpuStart;
        long system = serverSystem.getAsLong() - systemStart;
        for (Thread thread : threads) {
            thread.join(10_000);
        }
        return new Result(measured.get(), elapsed / 1e9, cpu, system, errors.get());
    }

    private void loop(InetSocketAddress server, AtomicLong measured, AtomicLong errors) {
        ByteBuffer out = ByteBuffer.allocateDirect(MESSAGE);
        // A line's end last, for servers that frame lines; raw echo servers send it back all the same.
        out.put(MESSAGE - 1, (byte) '\n');
        ByteBuffer in = ByteBuffer.allocateDirect(MESSAGE);
        while (this.phase != 2) {
            try (SocketChannel channel = SocketChannel.open()) {
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                channel.setOption(StandardSocketOptions.SO_LINGER, 0);
                channel.connect(server);
                out.clear();
                while (out.hasRemaining()) {
                    channel.write(out);
                }
                in.clear();
                while (in.hasRemaining()) {
                    if (channel.read(in) < 0) {
                        throw new IOException("closed before the echo");
                    }
                }
            }
            catch (IOException ex) {
                if (this.phase == 1) {
                    errors.incrementAndGet();
                }
                continue;
            }
            if (this.phase == 1) {
                measured.incrementAndGet();
            }
        }
    }
}
