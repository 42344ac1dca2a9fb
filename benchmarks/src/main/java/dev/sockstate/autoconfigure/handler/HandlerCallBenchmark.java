package dev.sockstate.autoconfigure.handler;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What calling a {@code @SocketHandler} bean's annotated {@code @OnData} method costs per message,
 * beside a bean implementing {@link ConnectionHandler} (a plain interface call), same run. Lives in
 * the handler package to build the {@link HandlerMethod} the starter builds at start-up.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HandlerCallBenchmark {

    /** The README's echo handler. */
    public static class AnnotatedEcho {

        @OnData
        public ByteBuffer echo(ByteBuffer data) {
            return data;
        }

        @OnData
        public void consume(Connection connection, ByteBuffer data) {
            data.position(data.limit());
        }
    }

    /** The same as an interface. */
    static class InterfaceEcho implements ConnectionHandler {

        @Override
        public void onData(Connection connection, ByteBuffer data) {
            data.position(data.limit());
        }
    }

    private final ByteBuffer data = ByteBuffer.allocate(64);

    private HandlerMethod echo;

    private HandlerMethod consume;

    private ConnectionHandler handler;

    @Setup
    public void setUp() throws NoSuchMethodException {
        AnnotatedEcho bean = new AnnotatedEcho();
        this.echo = HandlerMethod.of("echo", bean, AnnotatedEcho.class.getMethod("echo", ByteBuffer.class), OnData.class,
                HandlerMethod.CONNECTION_DATA, true);
        this.consume = HandlerMethod.of("echo", bean, AnnotatedEcho.class.getMethod("consume", Connection.class,
                ByteBuffer.class), OnData.class, HandlerMethod.CONNECTION_DATA, true);
        this.handler = new InterfaceEcho();
    }

    /** {@code @OnData ByteBuffer echo(ByteBuffer)}: the reply is what the runtime writes back. */
    @Benchmark
    public ByteBuffer annotatedReturningTheBuffer() throws Exception {
        this.data.clear();
        return this.echo.invoke(null, this.data, null, null, null);
    }

    /** {@code @OnData void consume(Connection, ByteBuffer)}. */
    @Benchmark
    public ByteBuffer annotatedTakingConnectionAndBuffer() throws Exception {
        this.data.clear();
        this.consume.invoke(null, this.data, null, null, null);
        return this.data;
    }

    /** {@code ConnectionHandler.onData(Connection, ByteBuffer)}. */
    @Benchmark
    public ByteBuffer interfaceCall() throws Exception {
        this.data.clear();
        this.handler.onData(null, this.data);
        return this.data;
    }
}
