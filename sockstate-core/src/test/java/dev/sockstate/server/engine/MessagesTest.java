package dev.sockstate.server.engine;

import static dev.sockstate.port.SocketReads.readLine;
import static dev.sockstate.port.SocketReads.readUntilClosed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.Connection;
import dev.sockstate.server.DatagramEndpoint;
import dev.sockstate.server.DatagramHandler;
import dev.sockstate.server.InvalidMessageException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.MessageHandler;
import dev.sockstate.server.MessageMapper;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Typed messages on a real backend: a {@link MessageHandler} reads each frame as its type and sends
 * replies as frames, {@link Connection#send} writes any message from any thread, datagrams read and
 * reply the same way, and a message that does not read closes only its connection, counted.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MessagesTest {

    private final ServerFixture fixture = new ServerFixture();

    private final AtomicLong badInput = new AtomicLong();

    private final ServerObserver counting = new ServerObserver() {
        @Override
        public ListenerObserver listener(String listener, Protocol protocol, ActiveCounts active) {
            return new ListenerObserver() {
                @Override
                public void frameRejected() {
                    MessagesTest.this.badInput.incrementAndGet();
                }
            };
        }
    };

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    private SocketServer start(ListenerSettings.Builder listener) {
        return this.fixture.start(List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)), this.counting,
                listener.messageMapper(new PointMapper()).build());
    }

    @Test
    void aMessageHandlerReadsEachFrameAsItsTypeAndItsRepliesGoOutFramed() throws Exception {
        SocketServer server = start(ServerFixture.tcp("points").framing(Framing.line()).handler(new Mirror()));
        Socket client = this.fixture.connect(server, "points");
        client.getOutputStream().write("1,2\n30,".getBytes(StandardCharsets.US_ASCII));
        assertThat(readLine(client)).isEqualTo("2,1");
        client.getOutputStream().write("40\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(readLine(client)).isEqualTo("40,30");
    }

    @Test
    void textIsReadAndSentInTheListenersCharset() throws Exception {
        Charset latin1 = StandardCharsets.ISO_8859_1;
        MessageHandler<String> shout = new MessageHandler<>() {
            @Override
            public Class<String> messageType() {
                return String.class;
            }

            @Override
            public Object onMessage(Connection connection, String message) {
                return message.toUpperCase(Locale.ROOT);
            }
        };
        SocketServer server = start(ServerFixture.tcp("text").framing(Framing.line()).charset(latin1).handler(shout));
        Socket client = this.fixture.connect(server, "text");
        client.getOutputStream().write("caf\u00e9\n".getBytes(latin1));
        assertThat(client.getInputStream().readNBytes(5)).isEqualTo("CAF\u00c9\n".getBytes(latin1));
    }

    @Test
    void aMessageThatDoesNotReadClosesOnlyItsConnectionNamingTheListenerAndTheType() throws Exception {
        Mirror mirror = new Mirror();
        SocketServer server = start(ServerFixture.tcp("points").framing(Framing.line()).handler(mirror));
        Socket bad = this.fixture.connect(server, "points");
        bad.getOutputStream().write("not a point\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(readUntilClosed(bad.getInputStream())).isEmpty();
        assertThat(mirror.errors).singleElement().isInstanceOf(InvalidMessageException.class).extracting(Throwable::getMessage)
                .isEqualTo("Listener 'points': a message of 11 bytes does not read as " + Point.class.getName()
                        + ": not x,y: not a point");
        assertThat(this.badInput).hasValue(1);
        Socket good = this.fixture.connect(server, "points");
        good.getOutputStream().write("5,6\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(readLine(good)).isEqualTo("6,5");
    }

    @Test
    void sendWritesAnyMessageFromAnyThreadAsOneFrameAndRefusesATypeNoMapperWrites() throws Exception {
        AtomicReference<Connection> opened = new AtomicReference<>();
        Mirror mirror = new Mirror() {
            @Override
            public void onOpen(Connection connection) {
                opened.set(connection);
            }
        };
        SocketServer server = start(ServerFixture.tcp("points").framing(Framing.octetCounting()).handler(mirror));
        Socket client = this.fixture.connect(server, "points");
        ServerFixture.await(() -> opened.get() != null, "the connection opened");
        Connection connection = opened.get();
        connection.send(new Point(7, 8));
        connection.send("text");
        connection.send(new byte[] { 'b' });
        assertThat(new String(client.getInputStream().readNBytes(14), StandardCharsets.US_ASCII)).isEqualTo("3 7,84 text1 b");
        assertThatIllegalArgumentException().isThrownBy(() -> connection.send(Thread.currentThread()))
                .withMessageStartingWith("Listener 'points' has no message mapper that writes java.lang.Thread");
    }

    @Test
    void datagramsAreReadAsMessagesAndRepliedToAsMessages() throws Exception {
        DatagramHandler swap = new DatagramHandler() {
            @Override
            public void onDatagram(DatagramEndpoint endpoint, ByteBuffer data, PeerAddress sender) throws Exception {
                Point point = endpoint.readMessage(data, Point.class);
                endpoint.send(new Point(point.y(), point.x()), sender);
            }
        };
        SocketServer server = start(ServerFixture.udp("points").handler(swap));
        InetSocketAddress target = new InetSocketAddress(((InetSocketAddress) server.listener("points").address()).getAddress(),
                server.listener("points").portNumber());
        try (DatagramSocket client = new DatagramSocket()) {
            client.setSoTimeout(5000);
            client.send(new DatagramPacket("not one".getBytes(StandardCharsets.US_ASCII), 7, target));
            client.send(new DatagramPacket("3,4".getBytes(StandardCharsets.US_ASCII), 3, target));
            DatagramPacket reply = new DatagramPacket(new byte[16], 16);
            client.receive(reply);
            assertThat(new String(reply.getData(), 0, reply.getLength(), StandardCharsets.US_ASCII)).isEqualTo("4,3");
        }
        assertThat(this.badInput).as("the datagram that did not read, dropped").hasValue(1);
    }

    /** A message type, read from and written as "x,y". */
    record Point(int x, int y) {
    }

    /** Reads and writes {@link Point}s. */
    static final class PointMapper implements MessageMapper {

        @Override
        public boolean canRead(Class<?> type) {
            return type == Point.class;
        }

        @Override
        public boolean canWrite(Class<?> type) {
            return type == Point.class;
        }

        @Override
        public <T> T read(ByteBuffer message, Class<T> type) {
            String text = StandardCharsets.US_ASCII.decode(message).toString();
            String[] parts = text.split(",");
            if (parts.length != 2) {
                throw new IllegalArgumentException("not x,y: " + text);
            }
            return type.cast(new Point(Integer.parseInt(parts[0]), Integer.parseInt(parts[1])));
        }

        @Override
        public ByteBuffer write(Object message) {
            Point point = (Point) message;
            return ByteBuffer.wrap((point.x() + "," + point.y()).getBytes(StandardCharsets.US_ASCII));
        }
    }

    /** Answers each point with its mirror image. */
    static class Mirror implements MessageHandler<Point> {

        final List<Throwable> errors = new CopyOnWriteArrayList<>();

        @Override
        public Class<Point> messageType() {
            return Point.class;
        }

        @Override
        public Object onMessage(Connection connection, Point message) {
            return new Point(message.y(), message.x());
        }

        @Override
        public void onError(Connection connection, Throwable error) {
            this.errors.add(error);
        }
    }
}
