package dev.sockstate.benchmarks;

import dev.sockstate.autoconfigure.metrics.MicrometerServerObserver;
import dev.sockstate.port.Backends;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.WorkerGroupSettings;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The throughput cost of metrics: the same echo server on loopback, without an observer and with
 * the Micrometer observer on a Prometheus registry (every meter of the starter), driven by the same
 * pipelined clients. Compare the two {@code metrics} values of one run.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Threads(4)
public class MetricsCostBenchmark {

    static final int MESSAGE = 64;

    static final int PIPELINE = 16;

    /** The server, one per trial. */
    @State(Scope.Benchmark)
    public static class Server {

        @Param({ "off", "on" })
        String metrics;

        SocketServer server;

        PrometheusMeterRegistry registry;

        int port;

        @Setup(Level.Trial)
        public void start() {
            ServerObserver observer = ServerObserver.NONE;
            if ("on".equals(this.metrics)) {
                this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
                observer = new MicrometerServerObserver(this.registry);
            }
            ConnectionHandler echo = (connection, data) -> connection.write(data);
            this.server = new SocketServer(Backends.select("auto"), List.of(WorkerGroupSettings.of("default", 2)),
                    List.of(ListenerSettings.tcp("echo").address(InetAddress.getLoopbackAddress()).handler(echo).build()), observer);
            this.server.start();
            this.port = this.server.listener("echo").portNumber();
        }

        @TearDown(Level.Trial)
        public void stop() {
            this.server.stop(Duration.ofSeconds(5));
            if (this.registry != null) {
                this.registry.close();
            }
        }
    }

    /** One client connection per benchmark thread. */
    @State(Scope.Thread)
    public static class Client {

        Socket socket;

        OutputStream out;

        InputStream in;

        final byte[] burst = new byte[MESSAGE * PIPELINE];

        final byte[] reply = new byte[MESSAGE * PIPELINE];

        @Setup(Level.Trial)
        public void connect(Server server) throws Exception {
            this.socket = new Socket(InetAddress.getLoopbackAddress(), server.port);
            this.socket.setTcpNoDelay(true);
            this.out = this.socket.getOutputStream();
            this.in = this.socket.getInputStream();
        }

        @TearDown(Level.Trial)
        public void close() throws Exception {
            this.socket.close();
        }
    }

    /** Sends {@value #PIPELINE} messages of {@value #MESSAGE} bytes at once and reads their echoes back. */
    @Benchmark
    @OperationsPerInvocation(PIPELINE)
    public int pipelinedEcho(Client client) throws Exception {
        client.out.write(client.burst);
        int read = 0;
        while (read < client.reply.length) {
            read += client.in.read(client.reply, read, client.reply.length - read);
        }
        return read;
    }
}
