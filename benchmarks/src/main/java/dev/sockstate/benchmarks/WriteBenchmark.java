package dev.sockstate.benchmarks;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Backends;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.Protocol;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A write that completes at once: {@code send} of a small message on a loopback connection whose
 * peer is drained every 64 writes, so the socket always takes everything. Two ways in:
 * <ul>
 * <li>{@code sendNativeBuffer}: from a buffer whose native address is known;</li>
 * <li>{@code sendDirectByteBuffer}: from a direct {@link ByteBuffer}, as {@code Connection.write}
 * passes the handler's buffer (the address is looked up on each call).</li>
 * </ul>
 * The time includes the kernel's loopback delivery; run with {@code -prof gc} for the allocation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class WriteBenchmark {

    private static final int DRAIN_EVERY = 64;

    @Param("64")
    int size;

    private NativeSockets sockets;

    private long server;

    private long client;

    private NativeBuffer message;

    private ByteBuffer direct;

    private NativeBuffer drain;

    private int writes;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Backend backend = Backends.select("auto");
        this.sockets = backend.sockets();
        long listener = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        try {
            this.sockets.bind(listener, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            this.sockets.listen(listener, 1);
            this.client = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
            this.sockets.connect(this.client, this.sockets.localAddress(listener));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            long accepted;
            while ((accepted = this.sockets.accept(listener)) == NativeSockets.NO_SOCKET) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("The loopback connection was not accepted within 5 s");
                }
                Thread.sleep(1);
            }
            this.server = accepted;
        }
        finally {
            this.sockets.close(listener);
        }
        this.message = this.sockets.allocate(this.size);
        this.direct = ByteBuffer.allocateDirect(this.size);
        this.drain = this.sockets.allocate(DRAIN_EVERY * this.size * 2);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        this.sockets.close(this.server);
        this.sockets.close(this.client);
    }

    @Benchmark
    public int sendNativeBuffer() throws Exception {
        this.message.buffer().clear();
        int sent = this.sockets.send(this.server, this.message);
        drainNow();
        return sent;
    }

    @Benchmark
    public int sendDirectByteBuffer() throws Exception {
        this.direct.clear();
        int sent = this.sockets.send(this.server, this.direct);
        drainNow();
        return sent;
    }

    private void drainNow() throws Exception {
        if (++this.writes % DRAIN_EVERY == 0) {
            int read;
            do {
                this.drain.buffer().clear();
                read = this.sockets.recv(this.client, this.drain);
            }
            while (read > 0 && !this.drain.buffer().hasRemaining());
        }
    }
}
