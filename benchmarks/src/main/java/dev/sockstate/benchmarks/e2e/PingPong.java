package dev.sockstate.benchmarks.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The load client: closed-loop ping-pong over many connections, served by a few selector threads.
 * Each connection keeps {@code depth} messages in flight and sends the next as soon as one comes
 * back; the latency of a message is from when it was queued to when its last byte came back. Bounded
 * in time: a warm-up, a measured window, then every connection is closed.
 */
final class PingPong {

    /** What one run measured. */
    record Result(long messages, double seconds, LatencyHistogram latency, long serverCpuNanos, long errors,
            double slowestConnectionShare) {

        double messagesPerSecond() {
            return this.messages / this.seconds;
        }

        double cpuMicrosPerMessage() {
            return (this.messages == 0) ? Double.NaN : this.serverCpuNanos / 1000.0 / this.messages;
        }
    }

    private static final int WARMING = 0;

    private static final int MEASURING = 1;

    private static final int STOPPING = 2;

    private volatile int phase = WARMING;

    private final Scenario scenario;

    private PingPong(Scenario scenario) {
        this.scenario = scenario;
    }

    /**
     * @param port the server's loopback port
     * @param scenario the load
     * @param threads client selector threads
     * @param warmupMillis load before measuring
     * @param measureMillis the measured window
     * @param serverCpu reads the server's CPU time, at the window's start and end
     * @return what was measured
     * @throws Exception when the connections cannot be made
     */
    static Result run(int port, Scenario scenario, int threads, long warmupMillis, long measureMillis, LongSupplier serverCpu)
            throws Exception {
        return new PingPong(scenario).drive(port, Math.min(threads, scenario.connections()), warmupMillis, measureMillis,
                serverCpu);
    }

    private Result drive(int port, int threadCount, long warmupMillis, long measureMillis, LongSupplier serverCpu)
            throws Exception {
        List<Driver> drivers = new ArrayList<>();
        for (int i = 0; i < threadCount; i++) {
            drivers.add(new Driver());
        }
        InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        for (int c = 0; c < this.scenario.connections(); c++) {
            SocketChannel channel = SocketChannel.open();
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.connect(server);
            channel.configureBlocking(false);
            drivers.get(this.scenario.thread(c, threadCount)).add(channel);
        }
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < threadCount; i++) {
            Thread thread = new Thread(drivers.get(i), "load-" + (i + 1));
            threads.add(thread);
            thread.start();
        }
        Thread.sleep(warmupMillis);
        long cpuStart = serverCpu.getAsLong();
        long start = System.nanoTime();
        this.phase = MEASURING;
        Thread.sleep(measureMillis);
        this.phase = STOPPING;
        long elapsed = System.nanoTime() - start;
        long cpu = serverCpu.getAsLong() - cpuStart;
        for (Thread thread : threads) {
            thread.join(10_000);
        }
        LatencyHistogram latency = new LatencyHistogram();
        long messages = 0;
        long errors = 0;
        long slowest = Long.MAX_VALUE;
        for (Driver driver : drivers) {
            latency.add(driver.latency);
            messages += driver.measured;
            errors += driver.errors;
            for (Peer peer : driver.peers) {
                slowest = Math.min(slowest, peer.measured);
            }
        }
        double fairShare = (double) messages / this.scenario.connections();
        return new Result(messages, elapsed / 1e9, latency, cpu, errors, (messages == 0) ? 0 : slowest / fairShare);
    }

    /** One client thread: a selector and its share of the connections. */
    private final class Driver implements Runnable {

        private final Selector selector;

        final List<Peer> peers = new ArrayList<>();

        private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(256 * 1024);

        private final ByteBuffer pattern;

        final LatencyHistogram latency = new LatencyHistogram();

        long measured;

        long errors;

        Driver() throws IOException {
            this.selector = Selector.open();
            // Messages back to back, one more than are in flight, so that a write may start anywhere in a message.
            int message = PingPong.this.scenario.size();
            int size = message * (PingPong.this.scenario.depth() + 1);
            this.pattern = ByteBuffer.allocateDirect(size);
            boolean lines = EchoServer.linesFramed();
            for (int i = 0; i < size; i++) {
                boolean end = lines && i % message == message - 1;
                this.pattern.put(end ? (byte) '\n' : (byte) ('a' + i % 26));
            }
        }

        void add(SocketChannel channel) throws IOException {
            Peer peer = new Peer(channel, PingPong.this.scenario.depth());
            peer.key = channel.register(this.selector, SelectionKey.OP_READ, peer);
            this.peers.add(peer);
        }

        @Override
        public void run() {
            try {
                long now = System.nanoTime();
                for (Peer peer : this.peers) {
                    for (int i = 0; i < PingPong.this.scenario.depth(); i++) {
                        peer.queue(now, PingPong.this.scenario.size());
                    }
                    write(peer);
                }
                while (PingPong.this.phase != STOPPING) {
                    this.selector.select(this::ready, 100);
                }
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
            finally {
                for (Peer peer : this.peers) {
                    try {
                        peer.channel.close();
                    }
                    catch (IOException ex) {
                        // closed all the same
                    }
                }
                try {
                    this.selector.close();
                }
                catch (IOException ex) {
                    // closed all the same
                }
            }
        }

        private void ready(SelectionKey key) {
            Peer peer = (Peer) key.attachment();
            try {
                if (key.isWritable()) {
                    write(peer);
                }
                if (key.isValid() && key.isReadable()) {
                    read(peer);
                }
            }
            catch (IOException ex) {
                this.errors++;
                key.cancel();
            }
        }

        private void read(Peer peer) throws IOException {
            this.readBuffer.clear();
            int read = peer.channel.read(this.readBuffer);
            if (read < 0) {
                throw new IOException("closed by the server");
            }
            int size = PingPong.this.scenario.size();
            peer.partial += read;
            if (peer.partial < size) {
                return;
            }
            long now = System.nanoTime();
            boolean measuring = PingPong.this.phase == MEASURING;
            while (peer.partial >= size) {
                peer.partial -= size;
                long sent = peer.complete();
                if (measuring) {
                    this.latency.record(now - sent);
                    this.measured++;
                    peer.measured++;
                }
                peer.queue(now, size);
            }
            write(peer);
        }

        private void write(Peer peer) throws IOException {
            int message = PingPong.this.scenario.size();
            while (peer.owed > 0) {
                // Where the stream is within a message: a line's end must fall at each message's end.
                int offset = (int) (peer.written % message);
                int chunk = (int) Math.min(peer.owed, this.pattern.capacity() - message);
                this.pattern.limit(offset + chunk).position(offset);
                int written = peer.channel.write(this.pattern);
                peer.owed -= written;
                peer.written += written;
                if (written < chunk) {
                    if (!peer.waitingToWrite) {
                        peer.waitingToWrite = true;
                        peer.key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                    }
                    return;
                }
            }
            if (peer.waitingToWrite) {
                peer.waitingToWrite = false;
                peer.key.interestOps(SelectionKey.OP_READ);
            }
        }
    }

    /** One connection: the send times of its messages in flight, and the bytes owed to the socket. */
    private static final class Peer {

        final SocketChannel channel;

        final long[] sendTimes;

        SelectionKey key;

        int head;

        int inFlight;

        long owed;

        /** Bytes written so far, to tell where in a message the next write starts. */
        long written;

        long partial;

        boolean waitingToWrite;

        long measured;

        Peer(SocketChannel channel, int depth) {
            this.channel = channel;
            this.sendTimes = new long[depth];
        }

        void queue(long now, int size) {
            this.sendTimes[(this.head + this.inFlight) % this.sendTimes.length] = now;
            this.inFlight++;
            this.owed += size;
        }

        long complete() {
            long sent = this.sendTimes[this.head];
            this.head = (this.head + 1) % this.sendTimes.length;
            this.inFlight--;
            return sent;
        }
    }
}
