package dev.sockstate.benchmarks;

import dev.sockstate.port.Backends;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.Protocol;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a message costs an echo server in native calls, sockstate's (JNA direct mapping) against the
 * JDK's own (JNI): a loopback connection each, a 64-byte message sent at one end and received at the
 * other, in one thread, through non-blocking sockets and direct buffers (a receive that finds
 * nothing yet is repeated, which seldom happens on loopback). Both ways make the same two
 * system calls with the same kernel work ({@code sendto}/{@code recvfrom} against {@code write}/
 * {@code read}), so the difference between the two scores is what the binding adds per pair of calls.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class SendReceiveBenchmark {

    private static final int SIZE = 64;

    private NativeSockets sockets;

    private long nativeServer;

    private long nativeClient;

    private NativeBuffer nativeOut;

    private NativeBuffer nativeIn;

    private SocketChannel jdkClient;

    private SocketChannel jdkServer;

    private final ByteBuffer jdkOut = ByteBuffer.allocateDirect(SIZE);

    private final ByteBuffer jdkIn = ByteBuffer.allocateDirect(SIZE);

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        this.sockets = Backends.select("auto").sockets();
        long listener = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        try {
            this.sockets.bind(listener, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            this.sockets.listen(listener, 1);
            this.nativeClient = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
            this.sockets.connect(this.nativeClient, this.sockets.localAddress(listener));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            long accepted;
            while ((accepted = this.sockets.accept(listener)) == NativeSockets.NO_SOCKET) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("The loopback connection was not accepted within 5 s");
                }
                Thread.sleep(1);
            }
            this.nativeServer = accepted;
        }
        finally {
            this.sockets.close(listener);
        }
        this.sockets.setOption(this.nativeServer, NativeSocketOption.TCP_NODELAY, 1);
        this.nativeOut = this.sockets.allocate(SIZE);
        this.nativeIn = this.sockets.allocate(SIZE);
        try (ServerSocketChannel jdkListener = ServerSocketChannel.open()) {
            jdkListener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            this.jdkClient = SocketChannel.open(jdkListener.getLocalAddress());
            this.jdkServer = jdkListener.accept();
        }
        for (SocketChannel channel : new SocketChannel[] {this.jdkClient, this.jdkServer}) {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.configureBlocking(false);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        this.sockets.close(this.nativeServer);
        this.sockets.close(this.nativeClient);
        this.jdkClient.close();
        this.jdkServer.close();
    }

    /** sockstate: {@code send} at one end of a native connection, {@code recv} at the other. */
    @Benchmark
    public int sockstateSendThenReceive() throws Exception {
        this.nativeOut.buffer().clear();
        int sent = this.sockets.send(this.nativeServer, this.nativeOut);
        this.nativeIn.buffer().clear();
        int received = 0;
        while (received < sent) {
            int read = this.sockets.recv(this.nativeClient, this.nativeIn);
            received += Math.max(0, read);
        }
        return received;
    }

    /** The JDK: the same with {@link SocketChannel#write} and {@link SocketChannel#read}. */
    @Benchmark
    public int jdkSendThenReceive() throws IOException {
        this.jdkOut.clear();
        int sent = this.jdkServer.write(this.jdkOut);
        this.jdkIn.clear();
        int received = 0;
        while (received < sent) {
            received += Math.max(0, this.jdkClient.read(this.jdkIn));
        }
        return received;
    }
}
