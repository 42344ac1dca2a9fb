package dev.sockstate.benchmarks.e2e;

import dev.sockstate.port.Backends;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.observer.ServerObserver;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What one slow handler call costs the other connections of a worker group: one connection whose
 * every call takes 100 ms, beside 31 connections in closed-loop ping-pong (16 bytes, one in
 * flight), on two workers, for a shared port at batch sizes 64, 8 and 1 and for a port per worker.
 * Reports the fast connections' messages per second, latency quantiles and how many of their
 * messages waited more than 50 ms (held behind the slow call). Bounded: each setting runs 4 s.
 * <pre>
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" dev.sockstate.benchmarks.e2e.SlowNeighbour
 * </pre>
 */
public final class SlowNeighbour {

    private static final int FAST_CONNECTIONS = 31;

    private static final int MESSAGE = 16;

    private static final long SLOW_CALL_MILLIS = 100;

    private static final long HELD_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private static final long RUN_NANOS = TimeUnit.SECONDS.toNanos(4);

    private SlowNeighbour() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("| workers' port | batch size | fast msgs/s | p50 | p99 | p99.9 | max | fast msgs held > 50 ms | slow calls |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        for (int round = 0; round < 2; round++) {
            boolean report = round == 1;
            run(false, 64, report);
            run(false, 8, report);
            run(false, 1, report);
            run(true, 64, report);
        }
    }

    private static void run(boolean portPerWorker, int batchSize, boolean report) throws Exception {
        ConnectionHandler handler = (connection, data) -> {
            if (data.get(data.position()) == 'S') {
                sleep(SLOW_CALL_MILLIS);
            }
            connection.write(data);
        };
        WorkerGroupSettings group = new WorkerGroupSettings(ListenerSettings.DEFAULT_GROUP, 2, batchSize, Duration.ofSeconds(1),
                64 * 1024, "sockstate-").withPortPerWorker(portPerWorker);
        ListenerSettings listener = ListenerSettings.tcp("echo").address(InetAddress.getLoopbackAddress()).handler(handler).build();
        SocketServer server = new SocketServer(Backends.select("auto"), List.of(group), List.of(listener), ServerObserver.NONE);
        server.start();
        try {
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.listener("echo").portNumber());
            AtomicBoolean running = new AtomicBoolean(true);
            int[] slowCalls = new int[1];
            Thread slow = new Thread(() -> slowClient(address, running, slowCalls), "slow-client");
            slow.start();
            Result fast = fastClients(address);
            running.set(false);
            slow.join(5000);
            if (report) {
                LatencyHistogram latency = fast.latency;
                System.out.printf(Locale.ROOT, "| %s | %d | %,.0f | %s | %s | %s | %s | %,d of %,d | %d |%n",
                        portPerWorker ? "one per worker" : "shared", batchSize, latency.count() / (RUN_NANOS / 1e9),
                        millis(latency.quantile(0.5)), millis(latency.quantile(0.99)), millis(latency.quantile(0.999)),
                        millis(fast.max), fast.held, latency.count(), slowCalls[0]);
            }
        }
        finally {
            server.stop(Duration.ofSeconds(5));
        }
    }

    /** One connection whose every message takes the handler {@link #SLOW_CALL_MILLIS}, then 20 ms of quiet. */
    private static void slowClient(InetSocketAddress address, AtomicBoolean running, int[] calls) {
        try (Socket socket = new Socket()) {
            socket.connect(address, 5000);
            socket.setSoTimeout(10_000);
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            byte[] message = new byte[MESSAGE];
            message[0] = 'S';
            while (running.get()) {
                out.write(message);
                in.readNBytes(MESSAGE);
                calls[0]++;
                sleep(20);
            }
        }
        catch (IOException ex) {
            throw new IllegalStateException("The slow client failed", ex);
        }
    }

    private static Result fastClients(InetSocketAddress address) throws IOException {
        Result result = new Result();
        try (Selector selector = Selector.open()) {
            long[] sentAt = new long[FAST_CONNECTIONS];
            ByteBuffer[] buffers = new ByteBuffer[FAST_CONNECTIONS];
            for (int i = 0; i < FAST_CONNECTIONS; i++) {
                SocketChannel channel = SocketChannel.open(address);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                channel.configureBlocking(false);
                channel.register(selector, SelectionKey.OP_READ, i);
                buffers[i] = ByteBuffer.allocate(MESSAGE);
                sentAt[i] = System.nanoTime();
                channel.write(ByteBuffer.wrap(new byte[MESSAGE]));
            }
            long end = System.nanoTime() + RUN_NANOS;
            while (System.nanoTime() < end) {
                selector.select(100);
                for (SelectionKey key : selector.selectedKeys()) {
                    int i = (Integer) key.attachment();
                    SocketChannel channel = (SocketChannel) key.channel();
                    if (channel.read(buffers[i]) < 0) {
                        throw new IOException("The server closed fast connection " + i);
                    }
                    if (!buffers[i].hasRemaining()) {
                        long now = System.nanoTime();
                        long waited = now - sentAt[i];
                        result.latency.record(waited);
                        result.max = Math.max(result.max, waited);
                        if (waited > HELD_NANOS) {
                            result.held++;
                        }
                        buffers[i].clear();
                        sentAt[i] = now;
                        channel.write(ByteBuffer.wrap(new byte[MESSAGE]));
                    }
                }
                selector.selectedKeys().clear();
            }
            for (SelectionKey key : selector.keys()) {
                key.channel().close();
            }
        }
        return result;
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** The fast connections' latencies. */
    private static final class Result {

        final LatencyHistogram latency = new LatencyHistogram();

        long max;

        long held;
    }
}
