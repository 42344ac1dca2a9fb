package dev.sockstate.benchmarks;

import dev.sockstate.port.Backend;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.observer.ServerObserver;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Messages echoed whole by a real server on the epoll backend: a 64 B line written on each of 16
 * loopback connections, then each echo read back (one operation is one message), the server one
 * worker on a port of its own with level-persistent connections (the starter's default layout), raw
 * or line-framed. With {@code -prof gc}, {@code gc.alloc.rate.norm} is what the whole process
 * allocates per message, the JVM's background included (the JMH thread's blocking channels allocate
 * nothing per call); 16 messages a wake-up keep that background small beside the messages. The
 * binding is chosen once a process, so each value of {@code binding} runs in a JVM of its own; on
 * Java 17 only {@code jna} runs.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class EchoPathBenchmark {

    /** The binding the epoll backend is asked for. */
    @Param({ "ffm", "jna" })
    public String binding;

    /** {@code raw}: the handler gets the bytes as read; {@code line}: one frame a line. */
    @Param({ "raw", "line" })
    public String framing;

    private SocketServer server;

    private static final int CONNECTIONS = 16;

    private final SocketChannel[] clients = new SocketChannel[CONNECTIONS];

    private final ByteBuffer message = ByteBuffer.allocateDirect(64);

    private final ByteBuffer reply = ByteBuffer.allocateDirect(64);

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Backend epoll = EpollBinding.select(this.binding);
        ListenerSettings.Builder listener = ListenerSettings.tcp("echo").group("echo").address(InetAddress.getLoopbackAddress())
                .handler(new Echo());
        if (this.framing.equals("line")) {
            listener.framing(Framing.line());
        }
        this.server = new SocketServer(epoll, List.of(WorkerGroupSettings.of("echo", 1).withPortPerWorker(true)),
                List.of(listener.build()), List.of(), ServerObserver.NONE);
        this.server.start();
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), this.server.listener("echo").portNumber());
        for (int i = 0; i < CONNECTIONS; i++) {
            this.clients[i] = SocketChannel.open(address);
        }
        while (this.message.position() < 63) {
            this.message.put((byte) 'e');
        }
        this.message.put((byte) '\n').flip();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        for (SocketChannel client : this.clients) {
            if (client != null) {
                client.close();
            }
        }
        this.server.stop(Duration.ofSeconds(1));
    }

    /** Writes the 64 bytes on every connection, then reads each echo whole. */
    @Benchmark
    @OperationsPerInvocation(CONNECTIONS)
    public int echo() throws Exception {
        for (SocketChannel client : this.clients) {
            this.message.rewind();
            while (this.message.hasRemaining()) {
                client.write(this.message);
            }
        }
        int first = 0;
        for (SocketChannel client : this.clients) {
            this.reply.clear();
            while (this.reply.hasRemaining()) {
                if (client.read(this.reply) < 0) {
                    throw new IllegalStateException("The server closed a connection");
                }
            }
            first += this.reply.get(0);
        }
        return first;
    }

    /** Writes back what it is given. */
    private static final class Echo implements ConnectionHandler {

        @Override
        public void onData(Connection connection, ByteBuffer data) {
            connection.write(data);
        }
    }
}
