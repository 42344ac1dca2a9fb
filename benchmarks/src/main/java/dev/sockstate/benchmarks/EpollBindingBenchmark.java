package dev.sockstate.benchmarks;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.Protocol;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
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
 * The epoll backend's two bindings of libc, FFM's (Java 22 and later) against JNA's, on the call a
 * server makes most often for nothing: a {@code recv} on a loopback connection with nothing to read,
 * which fails with {@code EAGAIN} and reads errno back. The binding is chosen once a process, so
 * each value of {@code binding} runs in a JVM of its own ({@code sockstate.epoll.binding}, set before
 * the backend is first asked); on Java 17 only {@code jna} runs.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class EpollBindingBenchmark {

    /** The binding the backend is asked for. */
    @Param({ "ffm", "jna" })
    public String binding;

    private NativeSockets sockets;

    private long server;

    private long client;

    private NativeBuffer buffer;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Backend epoll = EpollBinding.select(this.binding);
        this.sockets = epoll.sockets();
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
        this.buffer = this.sockets.allocate(64);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        this.sockets.close(this.server);
        this.sockets.close(this.client);
    }

    /** {@code recv} on an empty connection: -1, then errno ({@code EAGAIN}), reported as would-block. */
    @Benchmark
    public int recvThatWouldBlock() throws Exception {
        this.buffer.buffer().clear();
        int read = this.sockets.recv(this.server, this.buffer);
        if (read != NativeSockets.WOULD_BLOCK) {
            throw new IllegalStateException("An empty connection read " + read);
        }
        return read;
    }
}
