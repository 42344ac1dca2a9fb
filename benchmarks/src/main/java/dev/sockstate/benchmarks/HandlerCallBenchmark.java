package dev.sockstate.benchmarks;

import dev.sockstate.port.Protocol;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import dev.sockstate.spring.handler.SocketHandlers;
import dev.sockstate.spring.handler.SocketHandlers.ListenerKind;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
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
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/**
 * What calling a {@code @SocketHandler} bean's annotated {@code @OnData} method costs per message,
 * beside a bean implementing {@link ConnectionHandler} (a plain interface call), same run. The
 * annotated beans are adapted by the starter's public {@link SocketHandlers}, as at start-up; the
 * runtime calls the result through {@link ConnectionHandler#onData}, as here, with a connection
 * whose write consumes the reply.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HandlerCallBenchmark {

    /** The README's echo handler. */
    @SocketHandler("echo")
    public static class AnnotatedEcho {

        @OnData
        public ByteBuffer echo(ByteBuffer data) {
            return data;
        }
    }

    /** A handler that takes the connection and the bytes and returns nothing. */
    @SocketHandler("consume")
    public static class AnnotatedConsumer {

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

    private final Connection connection = new ConsumingConnection();

    private ConnectionHandler echo;

    private ConnectionHandler consume;

    private ConnectionHandler handler;

    @Setup
    public void setUp() {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerSingleton("echoHandler", new AnnotatedEcho());
        beans.registerSingleton("consumeHandler", new AnnotatedConsumer());
        ListenerKind raw = new ListenerKind(Protocol.TCP, false, null);
        SocketHandlers handlers = SocketHandlers.resolve(beans, Map.of("echo", raw, "consume", raw));
        this.echo = handlers.connectionHandler("echo");
        this.consume = handlers.connectionHandler("consume");
        this.handler = new InterfaceEcho();
    }

    /** {@code @OnData ByteBuffer echo(ByteBuffer)}: the reply is what the runtime writes back. */
    @Benchmark
    public ByteBuffer annotatedReturningTheBuffer() throws Exception {
        this.data.clear();
        this.echo.onData(this.connection, this.data);
        return this.data;
    }

    /** {@code @OnData void consume(Connection, ByteBuffer)}. */
    @Benchmark
    public ByteBuffer annotatedTakingConnectionAndBuffer() throws Exception {
        this.data.clear();
        this.consume.onData(this.connection, this.data);
        return this.data;
    }

    /** {@code ConnectionHandler.onData(Connection, ByteBuffer)}. */
    @Benchmark
    public ByteBuffer interfaceCall() throws Exception {
        this.data.clear();
        this.handler.onData(this.connection, this.data);
        return this.data;
    }

    /** A connection whose writes consume the bytes, as a socket that takes them all would. */
    static final class ConsumingConnection implements Connection {

        private boolean readingPaused;


        @Override
        public long id() {
            return 1;
        }

        @Override
        public String listenerName() {
            return "echo";
        }

        @Override
        public InetSocketAddress localAddress() {
            return null;
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return null;
        }

        @Override
        public void write(ByteBuffer data) {
            data.position(data.limit());
        }

        @Override
        public void send(Object message) {
            // An @OnData method's reply arrives here: a ByteBuffer, as the runtime writes it.
            write((ByteBuffer) message);
        }

        @Override
        public <T> T readMessage(ByteBuffer message, Class<T> type) {
            return type.cast(StandardCharsets.UTF_8.decode(message.duplicate()).toString());
        }

        @Override
        public long pendingWriteBytes() {
            return 0;
        }

        @Override
        public boolean isWritable() {
            return true;
        }

        @Override
        public void pauseReading() {
            this.readingPaused = true;
        }

        @Override
        public void resumeReading() {
            this.readingPaused = false;
        }

        @Override
        public boolean isReadingPaused() {
            return this.readingPaused;
        }

        @Override
        public void shutdownOutput() {
        }

        @Override
        public void close() {
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public Map<String, Object> attributes() {
            return Map.of();
        }

        @Override
        public void attach(Object attachment) {
        }

        @Override
        public Object attachment() {
            return null;
        }
    }
}
