package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.DatagramHandler;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Setting;
import dev.sockstate.server.Stage;
import dev.sockstate.server.StageContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The connection pipeline's contract ({@link Stage}), with stages written here, on a real backend
 * and loopback sockets: what a TLS or framing stage needs of it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PipelineTest {

    private final ServerFixture fixture = new ServerFixture();

    private final ExecutorService executor = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
        this.executor.shutdownNow();
    }

    @Test
    void aStageTransformsBytesBothWays() throws Exception {
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("echo").stage(CaseFlipAndBracket::new)
                .handler(new EchoHandler()).build());
        Socket client = this.fixture.connect(server, "echo");
        client.getOutputStream().write("abc".getBytes(StandardCharsets.US_ASCII));
        assertThat(read(client, 5)).isEqualTo("[ABC]");
    }

    /**
     * A stage's deadline, as the built-in TLS and PROXY protocol stages set theirs: a greeting stage
     * that closes a connection whose peer said nothing within 200 ms, and cancels the deadline at
     * the first bytes; its task runs in the connection's turn (where the stage's writes are the owner's).
     */
    @Test
    void aStagesDeadlineRunsInTheConnectionsTurnUnlessCancelledFirst() throws Exception {
        AtomicInteger expired = new AtomicInteger();
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("quiet").stage(() -> new Stage() {

            private StageContext.Deadline deadline;

            @Override
            public void open(StageContext context) {
                this.deadline = context.deadline(java.time.Duration.ofMillis(200), () -> {
                    expired.incrementAndGet();
                    context.write(ByteBuffer.wrap("too quiet\n".getBytes(StandardCharsets.US_ASCII)));
                    context.close();
                });
                context.passOpen();
            }

            @Override
            public void data(StageContext context, ByteBuffer data) {
                this.deadline.cancel();
                context.passData(data);
            }
        }).handler(new EchoHandler()).build());
        Socket quiet = this.fixture.connect(server, "quiet");
        Socket talking = this.fixture.connect(server, "quiet");
        talking.getOutputStream().write("hi".getBytes(StandardCharsets.US_ASCII));
        assertThat(read(talking, 2)).isEqualTo("hi");
        assertThat(readToEnd(quiet)).as("the quiet peer hears the deadline's words, then the close").isEqualTo("too quiet\n");
        // Three times the deadline after the talking connection's first bytes: its deadline was cancelled.
        Thread.sleep(600);
        talking.getOutputStream().write("still here".getBytes(StandardCharsets.US_ASCII));
        assertThat(read(talking, 10)).isEqualTo("still here");
        assertThat(expired).hasValue(1);
    }

    /**
     * Each stage's hold of the input is its own: a stage that releases its hold (as TLS does once its
     * engine's step ran) does not release another's. The first stage holds the input from the open
     * until the test lets it go; the second holds it and lets go at once; what the peer sent meanwhile
     * reaches the handler only after the first stage let go.
     */
    @Test
    void aStagesReleaseOfTheInputReleasesNoOtherStagesHold() throws Exception {
        AtomicReference<StageContext> first = new AtomicReference<>();
        RecordingHandler handler = new RecordingHandler();
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("held").stage(() -> new Stage() {
            @Override
            public void open(StageContext context) {
                context.holdInput(true);
                first.set(context);
                context.passOpen();
            }
        }).stage(() -> new Stage() {
            @Override
            public void open(StageContext context) {
                context.holdInput(true);
                context.holdInput(false);
                context.passOpen();
            }
        }).stage(Lines::new).handler(handler).build());
        Socket client = this.fixture.connect(server, "held");
        ServerFixture.await(() -> handler.opened, "the open reaches the handler");
        client.getOutputStream().write("waited\n".getBytes(StandardCharsets.US_ASCII));
        Thread.sleep(300);
        assertThat(handler.messages).as("held by the first stage, which did not let go").isEmpty();
        first.get().resume(() -> first.get().holdInput(false));
        ServerFixture.await(() -> handler.messages.size() == 1, "the line once the first stage let go");
        assertThat(handler.messages).containsExactly("waited");
    }

    /**
     * What the built-in TLS and PROXY protocol stages do with what they learn, a stage of the
     * application does too: a greeting stage that reads "VERSION 3 FROM 10.1.2.3:4567", publishes the
     * version and names the peer; the handler's onOpen and any other thread see both.
     */
    @Test
    void aStagePublishesWhatItLearntAndNamesThePeerForTheHandlerAndOtherThreads() throws Exception {
        AtomicReference<String> seenAtOpen = new AtomicReference<>();
        AtomicReference<Connection> served = new AtomicReference<>();
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("versioned").stage(() -> new Stage() {

            @Override
            public void open(StageContext context) {
                // the open waits for the greeting
            }

            @Override
            public void data(StageContext context, ByteBuffer data) {
                String[] words = StandardCharsets.US_ASCII.decode(data).toString().trim().split(" ");
                String[] peer = words[3].split(":");
                context.publish(Version.class, new Version(Integer.parseInt(words[1])));
                context.peerAddress(new InetSocketAddress(peer[0], Integer.parseInt(peer[1])));
                context.passOpen();
            }
        }).handler(new EchoHandler() {

            @Override
            public void onOpen(Connection connection) {
                seenAtOpen.set(connection.published(Version.class) + " " + connection.remoteAddress());
                served.set(connection);
            }
        }).build());
        Socket client = this.fixture.connect(server, "versioned");
        client.getOutputStream().write("VERSION 3 FROM 10.1.2.3:4567\n".getBytes(StandardCharsets.US_ASCII));
        ServerFixture.await(() -> served.get() != null, "the open after the greeting");
        assertThat(seenAtOpen.get()).isEqualTo("Version[number=3] /10.1.2.3:4567");
        Connection connection = served.get();
        assertThat(connection.published(Version.class).number()).as("read from this test's thread").isEqualTo(3);
        assertThat(connection.published(String.class)).as("nothing published as that type").isNull();
        assertThat(connection.tlsSession()).isNull();
        assertThat(connection.proxyHeader()).isNull();
    }

    /** A handler of an IP listener's may take its peer as an InetSocketAddress: a stage cannot name another kind. */
    @Test
    void aStageThatNamesAPeerAnIpListenersHandlerCouldNotTakeAbortsTheConnection() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("named").stage(() -> new Stage() {

            @Override
            public void data(StageContext context, ByteBuffer data) {
                context.peerAddress(java.net.UnixDomainSocketAddress.of("/run/elsewhere.sock"));
            }
        }).handler(handler).build());
        Socket client = this.fixture.connect(server, "named");
        client.getOutputStream().write('x');
        ServerFixture.await(() -> handler.closed.get() == 1, "the connection is closed");
        assertThat(handler.errors).singleElement().isInstanceOf(IllegalArgumentException.class)
                .extracting(Throwable::getMessage).asString().contains("InetSocketAddress");
    }

    /** What the greeting stage publishes. */
    record Version(int number) {
    }

    @Test
    void aStageKeepsBytesAcrossReadsAndTurnsOneReadIntoZeroOrManyMessages() throws Exception {
        Lines lines = new Lines();
        RecordingHandler handler = new RecordingHandler();
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("lines").stage(() -> lines).handler(handler).build());
        Socket client = this.fixture.connect(server, "lines");
        client.getOutputStream().write("one\ntw".getBytes(StandardCharsets.US_ASCII));
        ServerFixture.await(() -> handler.messages.size() == 1, "the first line arrives");
        client.getOutputStream().write("o\n".getBytes(StandardCharsets.US_ASCII));
        ServerFixture.await(() -> handler.messages.size() == 2, "the line split across two reads arrives whole");
        client.getOutputStream().write("thr".getBytes(StandardCharsets.US_ASCII));
        ServerFixture.await(() -> lines.reads.get() == 3, "a read without a whole line");
        assertThat(handler.messages).as("a read that completes no line gives the handler nothing").hasSize(2);
        client.getOutputStream().write("ee\nfour\nfive\n".getBytes(StandardCharsets.US_ASCII));
        ServerFixture.await(() -> handler.messages.size() == 5, "three lines from one write");
        assertThat(handler.messages).containsExactly("one", "two", "three", "four", "five");
        assertThat(lines.reads.get()).as("reads the stage saw for five lines").isLessThan(5);
    }

    @Test
    void aStageWritesWhenNoHandlerWroteAndDelaysTheOpenUntilItsHandshakeEnds() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        handler.greeting = "welcome\n";
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("greet").stage(Handshake::new).stage(Lines::new)
                .handler(handler).build());
        Socket client = this.fixture.connect(server, "greet");
        assertThat(read(client, 6)).as("written by the stage as the connection opened").isEqualTo("HELLO\n");
        Thread.sleep(50);
        assertThat(handler.opened).as("onOpen before the handshake ended").isFalse();
        client.getOutputStream().write("OK\nfirst\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(read(client, 8)).as("the handler's greeting from onOpen, once the handshake ended").isEqualTo("welcome\n");
        ServerFixture.await(() -> handler.messages.size() == 1, "the line after the handshake");
        assertThat(handler.messages).containsExactly("first");
    }

    @Test
    void aStageAsksForACloseAndHearsOfItBeforeTheHandler() throws Exception {
        List<String> order = new CopyOnWriteArrayList<>();
        RecordingHandler handler = new RecordingHandler();
        handler.order = order;
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("bye").stage(() -> new Stage() {

            @Override
            public void data(StageContext context, ByteBuffer data) {
                if (StandardCharsets.US_ASCII.decode(data).toString().contains("bye")) {
                    context.write(ByteBuffer.wrap("ciao".getBytes(StandardCharsets.US_ASCII)));
                    context.close();
                }
            }

            @Override
            public void closed(StageContext context) {
                order.add("stage closed");
            }
        }).handler(handler).build());
        Socket client = this.fixture.connect(server, "bye");
        client.getOutputStream().write("bye".getBytes(StandardCharsets.US_ASCII));
        assertThat(read(client, 4)).isEqualTo("ciao");
        assertThat(client.getInputStream().read()).as("end of stream after the queued bytes").isEqualTo(-1);
        ServerFixture.await(() -> order.size() == 2, "both heard of the close");
        assertThat(order).containsExactly("stage closed", "handler closed");
        assertThat(server.listener("bye").activeConnections()).isZero();
    }

    @Test
    void aStageThatThrowsAbortsTheConnectionAndTheHandlerHearsWhy() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("boom").stage(() -> new Stage() {

            @Override
            public void data(StageContext context, ByteBuffer data) {
                throw new IllegalStateException("the peer sent something this stage cannot parse");
            }
        }).handler(handler).build());
        Socket client = this.fixture.connect(server, "boom");
        client.getOutputStream().write("x".getBytes(StandardCharsets.US_ASCII));
        assertThat(readToEnd(client)).isEmpty();
        ServerFixture.await(() -> handler.closed.get() == 1, "the connection is closed");
        assertThat(handler.errors).singleElement().satisfies((error) -> assertThat(error)
                .hasMessage("the peer sent something this stage cannot parse"));
        assertThat(handler.messages).isEmpty();
        assertThat(server.listener("boom").handlerErrors()).isEqualTo(1);
    }

    @Test
    void aStageThatPassesDataBeforeTheOpenAbortsTheConnectionAndTheUnopenedHandlerHearsNothing() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("early").stage(() -> new Stage() {

            @Override
            public void open(StageContext context) {
                context.passData(ByteBuffer.wrap(new byte[] {1}));
            }
        }).handler(handler).build());
        Socket client = this.fixture.connect(server, "early");
        assertThat(readToEnd(client)).isEmpty();
        ServerFixture.await(() -> server.listener("early").activeConnections() == 0, "the connection is gone");
        assertThat(server.listener("early").handlerErrors()).as("logged and counted").isEqualTo(1);
        assertThat(handler.opened).isFalse();
        assertThat(handler.messages).isEmpty();
        assertThat(handler.errors).isEmpty();
        assertThat(handler.closed.get()).as("onClose without onOpen").isZero();
    }

    @Test
    void aStageMakerThatFailsClosesThatConnectionTheStagesAlreadyMadeAndTheListenerGoesOn() throws Exception {
        AtomicInteger made = new AtomicInteger();
        AtomicInteger closedStages = new AtomicInteger();
        EchoHandler handler = new EchoHandler();
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("echo").stage(() -> new Stage() {

            @Override
            public void closed(StageContext context) {
                closedStages.incrementAndGet();
            }
        }).stage(() -> {
            if (made.incrementAndGet() == 1) {
                throw new AssertionError("no stage for the first connection");
            }
            return new CaseFlipAndBracket();
        }).handler(handler).build());
        Socket first = this.fixture.connect(server, "echo");
        assertThat(readToEnd(first)).isEmpty();
        ServerFixture.await(() -> closedStages.get() == 1, "the first connection's first stage hears it closed");
        Socket second = this.fixture.connect(server, "echo");
        second.getOutputStream().write("ok".getBytes(StandardCharsets.US_ASCII));
        assertThat(read(second, 4)).isEqualTo("[OK]");
        assertThat(server.listener("echo").handlerErrors()).isEqualTo(1);
        assertThat(handler.opened.get()).as("only the second connection opened").isEqualTo(1);
        assertThat(handler.closed.get()).as("onClose without onOpen").isZero();
        ServerFixture.await(() -> server.listener("echo").activeConnections() == 1, "the first connection is gone");
    }

    @Test
    void aStageThatWritesAsTheConnectionClosesWritesNothingToTheGoneSocket() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("late").stage(() -> new Stage() {

            @Override
            public void closed(StageContext context) {
                context.write(ByteBuffer.wrap("too late".getBytes(StandardCharsets.US_ASCII)));
                context.passData(ByteBuffer.wrap("too late".getBytes(StandardCharsets.US_ASCII)));
            }
        }).handler(handler).build());
        Socket client = this.fixture.connect(server, "late");
        client.getOutputStream().write("x".getBytes(StandardCharsets.US_ASCII));
        ServerFixture.await(() -> handler.messages.size() == 1, "the message");
        client.shutdownOutput();
        assertThat(readToEnd(client)).isEmpty();
        ServerFixture.await(() -> handler.closed.get() == 1, "the close");
        assertThat(handler.messages).containsExactly("x");
        assertThat(handler.errors).isEmpty();
        assertThat(server.listener("late").handlerErrors()).isZero();
    }

    @Test
    void aPeerThatLeavesBeforeTheOpenReachedTheHandlerIsClosedWithoutTheHandlerHearingOfIt() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("greet").stage(Handshake::new).handler(handler).build());
        Socket client = this.fixture.connect(server, "greet");
        assertThat(read(client, 6)).isEqualTo("HELLO\n");
        client.shutdownOutput();
        assertThat(readToEnd(client)).as("closed by the server").isEmpty();
        ServerFixture.await(() -> server.listener("greet").activeConnections() == 0, "the connection is gone");
        assertThat(handler.opened).isFalse();
        assertThat(handler.hangups.get()).isZero();
        assertThat(handler.closed.get()).isZero();
    }

    @Test
    void eachStageSeesTheOpenOnceAndNoDataBeforeIt() throws Exception {
        AtomicInteger secondSawData = new AtomicInteger();
        RecordingHandler handler = new RecordingHandler();
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("twice").stage(() -> new Stage() {

            @Override
            public void open(StageContext context) {
                context.passData(ByteBuffer.wrap(new byte[] {1}));
                context.passOpen();
            }
        }).stage(() -> new Stage() {

            @Override
            public void data(StageContext context, ByteBuffer data) {
                secondSawData.incrementAndGet();
            }
        }).handler(handler).build());
        Socket early = this.fixture.connect(server, "twice");
        assertThat(readToEnd(early)).isEmpty();
        ServerFixture.await(() -> server.listener("twice").activeConnections() == 0, "the connection is gone");
        assertThat(secondSawData.get()).as("data before its open").isZero();
        assertThat(handler.opened).isFalse();

        RecordingHandler once = new RecordingHandler();
        SocketServer other = this.fixture.start(1, ServerFixture.tcp("once").stage(() -> new Stage() {

            @Override
            public void open(StageContext context) {
                context.passOpen();
                context.passOpen();
            }
        }).handler(once).build());
        Socket client = this.fixture.connect(other, "once");
        client.getOutputStream().write("a\n".getBytes(StandardCharsets.US_ASCII));
        ServerFixture.await(() -> once.messages.size() == 1, "the message");
        assertThat(once.opens.get()).isEqualTo(1);
    }

    @Test
    void writesFromAnotherThreadPassTheStagesOnTheOwningThread() throws Exception {
        List<String> writers = new CopyOnWriteArrayList<>();
        ConnectionHandler handler = new ConnectionHandler() {

            @Override
            public void onOpen(Connection connection) {
                PipelineTest.this.executor.execute(() -> connection.write(ByteBuffer.wrap("late".getBytes(StandardCharsets.US_ASCII))));
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
            }
        };
        SocketServer server = this.fixture.start(1, ServerFixture.tcp("late").stage(() -> new CaseFlipAndBracket() {

            @Override
            public void write(StageContext context, ByteBuffer data) {
                writers.add(Thread.currentThread().getName());
                super.write(context, data);
            }
        }).handler(handler).build());
        Socket client = this.fixture.connect(server, "late");
        assertThat(read(client, 6)).isEqualTo("[late]");
        assertThat(writers).singleElement().satisfies((thread) -> assertThat(thread).startsWith("sockstate-default-"));
    }

    @Test
    void withAHandlerExecutorTheStagesAndTheHandlerRunThereInOrder() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("lines").stage(Lines::new).handlerExecutor(this.executor)
                .handler(handler).build());
        Socket client = this.fixture.connect(server, "lines");
        for (int i = 0; i < 50; i++) {
            client.getOutputStream().write(("line " + i + "\n").getBytes(StandardCharsets.US_ASCII));
        }
        ServerFixture.await(() -> handler.messages.size() == 50, "fifty lines");
        for (int i = 0; i < 50; i++) {
            assertThat(handler.messages.get(i)).isEqualTo("line " + i);
        }
        assertThat(handler.threads).allSatisfy((thread) -> assertThat(thread).startsWith("pool-"));
    }

    @Test
    void eachConnectionGetsStagesOfItsOwn() throws Exception {
        AtomicInteger made = new AtomicInteger();
        RecordingHandler handler = new RecordingHandler();
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("lines").stage(() -> {
            made.incrementAndGet();
            return new Lines();
        }).handler(handler).build());
        Socket first = this.fixture.connect(server, "lines");
        Socket second = this.fixture.connect(server, "lines");
        first.getOutputStream().write("fir".getBytes(StandardCharsets.US_ASCII));
        second.getOutputStream().write("second\n".getBytes(StandardCharsets.US_ASCII));
        ServerFixture.await(() -> handler.messages.size() == 1, "the second connection's line");
        first.getOutputStream().write("st\n".getBytes(StandardCharsets.US_ASCII));
        ServerFixture.await(() -> handler.messages.size() == 2, "the first connection's line");
        assertThat(handler.messages).containsExactly("second", "first");
        assertThat(made.get()).isEqualTo(2);
    }

    @Test
    void stagesAreRefusedOnAUdpListener() {
        DatagramHandler handler = (endpoint, data, sender) -> {
        };
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ListenerSettings.udp("udp").stage(Lines::new).handler(handler).build())
                .satisfies((refused) -> assertThat(refused.setting()).isEqualTo(Setting.STAGES))
                .withMessageContaining("Listener 'udp': stage");
    }

    private static String read(Socket client, int length) throws IOException {
        return new String(client.getInputStream().readNBytes(length), StandardCharsets.US_ASCII);
    }

    private static String readToEnd(Socket client) throws IOException {
        InputStream in = client.getInputStream();
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        try {
            in.transferTo(all);
        }
        catch (IOException ex) {
            // reset by the abort: what arrived before is what counts
        }
        return all.toString(StandardCharsets.US_ASCII);
    }

    /** Flips the case of inbound letters and brackets outbound bytes. */
    static class CaseFlipAndBracket implements Stage {

        @Override
        public void data(StageContext context, ByteBuffer data) {
            ByteBuffer flipped = ByteBuffer.allocate(data.remaining());
            while (data.hasRemaining()) {
                flipped.put((byte) (data.get() ^ 0x20));
            }
            context.passData(flipped.flip());
        }

        @Override
        public void write(StageContext context, ByteBuffer data) {
            ByteBuffer framed = ByteBuffer.allocate(data.remaining() + 2);
            framed.put((byte) '[').put(data).put((byte) ']');
            context.write(framed.flip());
        }
    }

    /** Passes each LF-terminated line on without its LF, keeping a partial line for the next read. */
    static class Lines implements Stage {

        final AtomicInteger reads = new AtomicInteger();

        private final ByteArrayOutputStream partial = new ByteArrayOutputStream();

        @Override
        public void data(StageContext context, ByteBuffer data) {
            this.reads.incrementAndGet();
            while (data.hasRemaining()) {
                byte next = data.get();
                if (next == '\n') {
                    context.passData(ByteBuffer.wrap(this.partial.toByteArray()));
                    this.partial.reset();
                }
                else {
                    this.partial.write(next);
                }
            }
        }
    }

    /** Sends HELLO as the connection opens, and passes the open on only once the peer answered OK. */
    static class Handshake implements Stage {

        private final StringBuilder answer = new StringBuilder();

        private boolean done;

        @Override
        public void open(StageContext context) {
            context.write(ByteBuffer.wrap("HELLO\n".getBytes(StandardCharsets.US_ASCII)));
        }

        @Override
        public void data(StageContext context, ByteBuffer data) {
            while (!this.done && data.hasRemaining()) {
                this.answer.append((char) data.get());
                if (this.answer.toString().equals("OK\n")) {
                    this.done = true;
                    context.passOpen();
                }
                else if (this.answer.length() >= 3) {
                    context.abort(new IllegalStateException("Expected OK, got " + this.answer));
                    return;
                }
            }
            if (this.done && data.hasRemaining()) {
                context.passData(data);
            }
        }
    }

    /** Records what reached the handler. */
    static class RecordingHandler implements ConnectionHandler {

        final List<String> messages = new CopyOnWriteArrayList<>();

        final List<String> threads = new CopyOnWriteArrayList<>();

        final List<Throwable> errors = new CopyOnWriteArrayList<>();

        final AtomicInteger closed = new AtomicInteger();

        final AtomicInteger opens = new AtomicInteger();

        final AtomicInteger hangups = new AtomicInteger();

        volatile boolean opened;

        volatile String greeting;

        volatile List<String> order;

        @Override
        public void onOpen(Connection connection) {
            this.opened = true;
            this.opens.incrementAndGet();
            if (this.greeting != null) {
                connection.write(ByteBuffer.wrap(this.greeting.getBytes(StandardCharsets.US_ASCII)));
            }
        }

        @Override
        public void onData(Connection connection, ByteBuffer data) {
            this.threads.add(Thread.currentThread().getName());
            this.messages.add(StandardCharsets.US_ASCII.decode(data).toString());
        }

        @Override
        public void onHangup(Connection connection) {
            this.hangups.incrementAndGet();
            connection.close();
        }

        @Override
        public void onError(Connection connection, Throwable error) {
            this.errors.add(error);
        }

        @Override
        public void onClose(Connection connection) {
            if (this.order != null) {
                this.order.add("handler closed");
            }
            this.closed.incrementAndGet();
        }
    }
}
