package dev.sockstate.server.engine;

import static dev.sockstate.port.SocketReads.readLine;
import static dev.sockstate.port.SocketReads.readUntilClosed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.sockstate.port.MisbehavingBackend;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.SocketOptions;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import dev.sockstate.server.framing.FrameDecoder;
import dev.sockstate.server.framing.FrameEncoder;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.framing.FramingException;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.ServerObserver;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Framing on a real backend and loopback sockets: whole frames reach the handler however the bytes
 * arrive, writes go out framed, and bad input closes only its connection, counted, with a clear
 * error and bounded memory.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FramingTest {

    private final ServerFixture fixture = new ServerFixture();

    private final AtomicLong received = new AtomicLong();

    private final AtomicLong framingFailures = new AtomicLong();

    private final AtomicLong sends = new AtomicLong();

    /** The bytes the listener's sends took, counted after {@link #sends}. */
    private final AtomicLong sentBytes = new AtomicLong();

    private final ServerObserver counting = new ServerObserver() {
        @Override
        public ListenerObserver listener(String listener, Protocol protocol, ActiveCounts active) {
            return new ListenerObserver() {
                @Override
                public void received(int bytes) {
                    FramingTest.this.received.addAndGet(bytes);
                }

                @Override
                public void frameRejected() {
                    FramingTest.this.framingFailures.incrementAndGet();
                }

                @Override
                public void sent(int bytes) {
                    FramingTest.this.sends.incrementAndGet();
                    // After the count of sends: bytes seen here mean their send is counted.
                    FramingTest.this.sentBytes.addAndGet(bytes);
                }
            };
        }
    };

    private final ExecutorService executor = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
        this.executor.shutdownNow();
    }

    private SocketServer start(Framing framing, ConnectionHandler handler) {
        return this.fixture.start(List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)), this.counting,
                ServerFixture.tcp("framed").framing(framing).handler(handler).build());
    }

    @Test
    void aLineSplitOverManyReadsReachesTheHandlerWholeAndTheConnectionKeepsNoBufferAfterIt() throws Exception {
        FrameRecorder recorder = new FrameRecorder();
        SocketServer server = start(Framing.line(), recorder);
        Socket client = this.fixture.connect(server, "framed");
        OutputStream out = client.getOutputStream();
        sendAndAwaitRead(out, "hel");
        assertThat(recorder.frames).isEmpty();
        assertThat(recorder.connection().framingPartial()).as("the unfinished frame kept").isNotNull();
        sendAndAwaitRead(out, "lo wor");
        sendAndAwaitRead(out, "ld\r");
        assertThat(recorder.frames).isEmpty();
        out.write("\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(readLine(client)).isEqualTo("hello world");
        assertThat(recorder.frames).containsExactly("hello world");
        assertThat(recorder.connection().framingPartial()).as("the buffer of a connection with no unfinished frame").isNull();
    }

    @Test
    void manyFramesInOneReadReachTheHandlerOneCallEachAndGoOutFramed() throws Exception {
        FrameRecorder recorder = new FrameRecorder();
        SocketServer server = start(Framing.line(), recorder);
        Socket client = this.fixture.connect(server, "framed");
        client.getOutputStream().write("one\ntwo\r\n\nthree\nfou".getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(client.getInputStream().readNBytes(15), StandardCharsets.US_ASCII)).isEqualTo("one\ntwo\n\nthree\n");
        assertThat(recorder.frames).containsExactly("one", "two", "", "three");
        client.getOutputStream().write("r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(readLine(client)).isEqualTo("four");
    }

    @Test
    void theRepliesToAPipelineOfFramesInOneReadLeaveInOneSend() throws Exception {
        assumeFalse(MisbehavingBackend.asked(), "measures the real backend's own costs");
        FrameRecorder recorder = new FrameRecorder();
        SocketServer server = start(Framing.octetCounting(), recorder);
        Socket client = this.fixture.connect(server, "framed");
        StringBuilder pipeline = new StringBuilder();
        for (int i = 0; i < 16; i++) {
            pipeline.append("6 frame").append((char) ('a' + i));
        }
        byte[] bytes = pipeline.toString().getBytes(StandardCharsets.US_ASCII);
        sendAndAwaitRead(client.getOutputStream(), bytes);
        assertThat(new String(client.getInputStream().readNBytes(bytes.length), StandardCharsets.US_ASCII)).isEqualTo(pipeline.toString());
        assertThat(recorder.frames).hasSize(16);
        // The client can read the replies before the worker counted the send that took them.
        ServerFixture.await(() -> this.sentBytes.get() >= bytes.length, "the sends of the replies counted");
        assertThat(this.sends).as("sends for 16 replies to one read").hasValue(1);
    }

    @Test
    void framesAcrossReadsOfEveryLengthArriveWholeForEachFraming() throws Exception {
        byte[] payload = "a frame's content".getBytes(StandardCharsets.US_ASCII);
        for (Framing framing : List.of(Framing.line(), Framing.delimiter(new byte[] { '#', '#' }), Framing.octetCounting(),
                Framing.lengthField(0, 2, ByteOrder.BIG_ENDIAN, 0, 2), Framing.lengthField(1, 3, ByteOrder.LITTLE_ENDIAN, 2, 0),
                Framing.fixed(payload.length))) {
            FrameRecorder recorder = new FrameRecorder();
            SocketServer server = start(framing, recorder);
            byte[] frame = frame(framing, payload);
            Socket client = this.fixture.connect(server, "framed");
            OutputStream out = client.getOutputStream();
            // Three frames: the first byte by byte, the second in two halves, the third whole.
            for (byte b : frame) {
                sendAndAwaitRead(out, new byte[] { b });
            }
            sendAndAwaitRead(out, Arrays.copyOfRange(frame, 0, frame.length / 2));
            out.write(Arrays.copyOfRange(frame, frame.length / 2, frame.length));
            out.write(frame);
            byte[] expectedEcho = new byte[3 * frame.length];
            for (int i = 0; i < 3; i++) {
                System.arraycopy(frame, 0, expectedEcho, i * frame.length, frame.length);
            }
            // With the header kept, the handler sees the whole frame, and writes it back whole.
            String content = new String(isHeaderKept(framing) ? frame : payload, StandardCharsets.US_ASCII);
            assertThat(client.getInputStream().readNBytes(expectedEcho.length)).as("echo through %s", framing).isEqualTo(expectedEcho);
            assertThat(recorder.frames).as("frames through %s", framing).containsExactly(content, content, content);
            assertThat(recorder.connection().framingPartial()).isNull();
            server.stop(Duration.ofSeconds(5));
        }
    }

    private static boolean isHeaderKept(Framing framing) {
        return framing.decoder().toString().contains("header kept");
    }

    /** The frame each framing makes of the payload, written here by hand. */
    private static byte[] frame(Framing framing, byte[] payload) {
        String kind = framing.decoder().toString();
        ByteBuffer frame = ByteBuffer.allocate(payload.length + 16);
        if (kind.equals("line")) {
            frame.put(payload).put((byte) '\n');
        }
        else if (kind.startsWith("delimiter")) {
            frame.put(payload).put((byte) '#').put((byte) '#');
        }
        else if (kind.equals("octet-counting")) {
            frame.put((payload.length + " ").getBytes(StandardCharsets.US_ASCII)).put(payload);
        }
        else if (kind.contains("header stripped")) {
            frame.putShort((short) payload.length).put(payload);
        }
        else if (kind.contains("header kept")) {
            // One byte before a 3-byte little-endian field whose value leaves out 2 of the bytes after it,
            // then the payload's bytes past the first four.
            int after = payload.length - 4;
            frame.put((byte) 7).put((byte) (after - 2)).put((byte) ((after - 2) >> 8)).put((byte) ((after - 2) >> 16));
            frame.put(payload, 4, after);
        }
        else {
            frame.put(payload);
        }
        frame.flip();
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        return bytes;
    }

    @Test
    void aLineOneByteOverTheLimitClosesOnlyItsConnectionWithAnErrorNamingTheListenerAndTheLimit() throws Exception {
        FrameRecorder recorder = new FrameRecorder();
        SocketServer server = start(Framing.line().withMaxFrameSize(16), recorder);
        Socket exact = this.fixture.connect(server, "framed");
        exact.getOutputStream().write("fifteen bytes..\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(readLine(exact)).isEqualTo("fifteen bytes..");
        Socket over = this.fixture.connect(server, "framed");
        over.getOutputStream().write("sixteen bytes...\n".getBytes(StandardCharsets.US_ASCII));
        assertClosedByServer(over);
        assertThat(recorder.errors).singleElement().isInstanceOf(FramingException.class).extracting(Throwable::getMessage)
                .isEqualTo("Listener 'framed': a frame of 17 bytes, over its max-frame-size of 16 bytes");
        assertThat(((FramingException) recorder.errors.get(0)).reason()).isEqualTo(FramingException.Reason.TOO_LARGE);
        assertThat(this.framingFailures).hasValue(1);
        exact.getOutputStream().write("still served\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(readLine(exact)).isEqualTo("still served");
    }

    @Test
    void theHandlerMayAnswerBadInputBeforeTheConnectionCloses() throws Exception {
        FrameRecorder answering = new FrameRecorder() {
            @Override
            public void onError(Connection connection, Throwable error) {
                super.onError(connection, error);
                connection.write(ByteBuffer.wrap(("refused: " + error.getMessage()).getBytes(StandardCharsets.US_ASCII)));
            }
        };
        SocketServer server = start(Framing.octetCounting(), answering);
        Socket client = this.fixture.connect(server, "framed");
        client.getOutputStream().write("2 ok0 zero".getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(client.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("2 ok109 refused: "
                + "Listener 'framed': Octet counting: expected a length (a digit 1-9) at byte 1 of the frame, found '0'");
        assertThat(answering.frames).containsExactly("ok");
    }

    @Test
    @BlocksWorkers("holds a handler call while the stop begins")
    void bytesThatDoNotFrameDuringAGracefulStopReachOnErrorAndEndTheDrain() throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        FrameRecorder slow = new FrameRecorder() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                super.onData(connection, data);
                holding.countDown();
                awaitQuietly(release);
            }
        };
        SocketServer server = start(Framing.octetCounting(), slow);
        Socket client = this.fixture.connect(server, "framed");
        sendAndAwaitRead(client.getOutputStream(), "5 first");
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        client.getOutputStream().write("x not a length".getBytes(StandardCharsets.US_ASCII));
        TcpConnection connection = slow.connection();
        Future<?> stopping = this.executor.submit(() -> server.stop(Duration.ofSeconds(5)));
        ServerFixture.await(connection::isDraining, "the stop asked the connection to drain");
        release.countDown();
        stopping.get(10, TimeUnit.SECONDS);
        assertThat(slow.frames).containsExactly("first");
        assertThat(slow.errors).singleElement().isInstanceOf(FramingException.class).extracting(Throwable::getMessage)
                .isEqualTo("Listener 'framed': Octet counting: expected a length (a digit 1-9) at byte 1 of the frame, found 'x'");
        assertThat(((FramingException) slow.errors.get(0)).reason()).isEqualTo(FramingException.Reason.MALFORMED);
    }

    @Test
    void aDecoderOfTheApplicationsThatThrowsClosesItsConnectionEvenOnAHandlerExecutor() throws Exception {
        FrameDecoder fragile = new FrameDecoder() {
            @Override
            public long frameLength(ByteBuffer in) {
                if (in.get(in.position()) == 'x') {
                    throw new IndexOutOfBoundsException("read past the frame");
                }
                return 1;
            }

            @Override
            public String toString() {
                return "fragile";
            }
        };
        FrameRecorder recorder = new FrameRecorder();
        SocketServer server = this.fixture.start(List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)), this.counting,
                ServerFixture.tcp("framed").framing(Framing.of(fragile, FrameEncoder.AS_IS)).handlerExecutor(this.executor)
                        .handler(recorder).build());
        Socket client = this.fixture.connect(server, "framed");
        client.getOutputStream().write("ax".getBytes(StandardCharsets.US_ASCII));
        assertThat(client.getInputStream().read()).isEqualTo('a');
        assertClosedByServer(client);
        ServerFixture.await(() -> !recorder.errors.isEmpty(), "the handler heard of the failure");
        assertThat(recorder.errors.get(0)).isInstanceOf(FramingException.class)
                .hasMessage("Listener 'framed': the decoder fragile failed: java.lang.IndexOutOfBoundsException: read past the frame");
        assertThat(((FramingException) recorder.errors.get(0)).reason()).isEqualTo(FramingException.Reason.DECODER_FAILED);
        ServerFixture.await(() -> server.listener("framed").activeConnections() == 0, "the connection was let go and closed");
        assertThat(this.framingFailures).hasValue(1);
    }

    @Test
    void anAnnouncedLengthIsNotAllocatedBeforeItsBytesArrive() throws Exception {
        FrameRecorder recorder = new FrameRecorder();
        SocketServer server = start(Framing.lengthField(0, 4, ByteOrder.BIG_ENDIAN, 0, 4).withMaxFrameSize(16 * 1024 * 1024), recorder);
        Socket client = this.fixture.connect(server, "framed");
        DataOutputStream out = new DataOutputStream(client.getOutputStream());
        out.writeInt(16 * 1024 * 1024 - 4);
        out.write(new byte[10]);
        out.flush();
        // Bytes are counted as read, before the framer keeps them: wait for what it kept.
        ServerFixture.await(() -> this.received.get() >= 14 && recorder.last != null && ((TcpConnection) recorder.last).framingPartial() != null,
                "the server read the header and kept the unfinished frame");
        assertThat(recorder.connection().framingPartial().capacity()).as("room kept for an announced 16 MiB frame").isLessThanOrEqualTo(512);
        byte[] rest = new byte[16 * 1024 * 1024 - 4 - 10];
        out.write(rest);
        out.flush();
        ServerFixture.await(() -> recorder.frames.size() == 1, "the whole frame arrived");
        assertThat(recorder.frames.get(0)).hasSize(16 * 1024 * 1024 - 4);
        assertThat(recorder.connection().framingPartial()).isNull();
    }

    @Test
    void aFrameWhoseLengthItsHeaderToldArrivesWholeAcrossReadsWhenTheDecoderResumesItsSearch() throws Exception {
        FrameRecorder recorder = new FrameRecorder();
        SocketServer server = start(Framing.of(new CountedBodyDecoder(), FrameEncoder.AS_IS).withMaxFrameSize(1024 * 1024), recorder);
        Socket client = this.fixture.connect(server, "framed");
        OutputStream out = client.getOutputStream();
        // The header and the body's start in one read, the rest in two more: the decoder answered
        // the length at the first, so no later call may claim it searched the body and found no end.
        sendAndAwaitRead(out, "11\r\nhel", recorder);
        sendAndAwaitRead(out, "lo\nwo", recorder);
        sendAndAwaitRead(out, "rld\r\n", recorder);
        ServerFixture.await(() -> !recorder.frames.isEmpty() || !recorder.errors.isEmpty(), "a frame or an error");
        assertThat(recorder.errors).isEmpty();
        assertThat(recorder.frames).containsExactly("hello\nworld");
        assertThat(new String(client.getInputStream().readNBytes(11), StandardCharsets.US_ASCII)).isEqualTo("hello\nworld");
    }

    /**
     * A decoder that saves how far its parse of an unfinished frame got ({@link FrameDecoder.Progress})
     * gets it back at the next call for that frame, and so looks at each byte about once, however
     * many reads the frame takes: a list of 5,000 lines in reads of 100 bytes. A decoder given
     * nothing back would parse the frame from its start at each read (about 150 times as many bytes).
     */
    @Test
    void aDecoderThatSavesItsProgressResumesItsParseAtEachReadOfALongFrame() throws Exception {
        LineList decoder = new LineList();
        FrameRecorder recorder = new FrameRecorder() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                this.frames.add(data.remaining() + " bytes");
                data.position(data.limit());
            }
        };
        SocketServer server = start(Framing.of(decoder, FrameEncoder.AS_IS).withMaxFrameSize(1024 * 1024), recorder);
        Socket client = this.fixture.connect(server, "framed");
        OutputStream out = client.getOutputStream();
        StringBuilder frame = new StringBuilder("5000\r\n");
        for (int i = 0; i < 5000; i++) {
            frame.append(i % 10).append("\n");
        }
        frame.append("1\r\nlast\n");
        byte[] bytes = frame.toString().getBytes(StandardCharsets.US_ASCII);
        for (int at = 0; at < bytes.length; at += 100) {
            sendAndAwaitRead(out, Arrays.copyOfRange(bytes, at, Math.min(bytes.length, at + 100)), recorder);
        }
        ServerFixture.await(() -> recorder.frames.size() == 2, "both frames");
        assertThat(recorder.frames).containsExactly((5000 * 2) + " bytes", "5 bytes");
        assertThat(decoder.examined.get()).as("bytes the decoder looked at, for " + bytes.length + " bytes in "
                + ((bytes.length + 99) / 100) + " reads").isLessThan(2L * bytes.length);
    }

    /**
     * A decoder that resumes its search where the calls before left it ({@code searched}) looks at
     * each byte of a line about once, however many reads the line takes: 6,000 bytes in 60 reads.
     */
    @Test
    void aSearchResumesAfterTheBytesSearchedAtEveryReadOfALongLine() throws Exception {
        CountingLines decoder = new CountingLines();
        FrameRecorder recorder = new FrameRecorder();
        SocketServer server = start(Framing.of(decoder, FrameEncoder.AS_IS).withMaxFrameSize(64 * 1024), recorder);
        Socket client = this.fixture.connect(server, "framed");
        OutputStream out = client.getOutputStream();
        byte[] line = ("x".repeat(5_999) + "\n").getBytes(StandardCharsets.US_ASCII);
        for (int at = 0; at < line.length; at += 100) {
            sendAndAwaitRead(out, Arrays.copyOfRange(line, at, at + 100), recorder);
        }
        ServerFixture.await(() -> recorder.frames.size() == 1, "the line");
        assertThat(decoder.examined.get()).as("bytes the decoder looked at, for a line of 6,000 in 60 reads").isLessThan(2L * line.length);
    }

    /**
     * A decoder that announces how long the frame is at least ({@link FrameDecoder#atLeast}) is not
     * asked again before that much arrived: a list of two 100,000-byte bulks in 1,000-byte reads
     * costs it a few calls, not one a read; and the frame arrives whole.
     */
    @Test
    void aDecoderThatAnnouncesALengthTheFrameReachesIsNotAskedAgainBeforeItArrived() throws Exception {
        BulkList decoder = new BulkList();
        FrameRecorder recorder = new FrameRecorder() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                this.frames.add(data.remaining() + " bytes, " + (char) data.get(data.position() + 10) + ".."
                        + (char) data.get(data.limit() - 3));
                data.position(data.limit());
            }
        };
        SocketServer server = start(Framing.of(decoder, FrameEncoder.AS_IS).withMaxFrameSize(1024 * 1024), recorder);
        Socket client = this.fixture.connect(server, "framed");
        OutputStream out = client.getOutputStream();
        byte[] body = new byte[100_000];
        Arrays.fill(body, (byte) 'a');
        body[body.length - 1] = 'z';
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        frame.writeBytes("2\r\n".getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < 2; i++) {
            frame.writeBytes("100000\r\n".getBytes(StandardCharsets.US_ASCII));
            frame.writeBytes(body);
            frame.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        byte[] bytes = frame.toByteArray();
        for (int at = 0; at < bytes.length; at += 1000) {
            sendAndAwaitRead(out, Arrays.copyOfRange(bytes, at, Math.min(bytes.length, at + 1000)), recorder);
        }
        ServerFixture.await(() -> recorder.frames.size() == 1 || !recorder.errors.isEmpty(), "the frame");
        assertThat(recorder.errors).isEmpty();
        assertThat(recorder.frames).containsExactly((bytes.length - 3) + " bytes, a..z");
        assertThat(decoder.calls.get()).as("calls of the decoder for a frame in " + ((bytes.length + 999) / 1000) + " reads")
                .isLessThanOrEqualTo(8);
    }

    /** Frames of a decoder that announces lengths arrive whole however the reads split them, and two in one read both arrive. */
    @Test
    void framesOfADecoderThatAnnouncesLengthsArriveWholeAtEverySplit() throws Exception {
        FrameRecorder recorder = new FrameRecorder();
        SocketServer server = start(Framing.of(new BulkList(), FrameEncoder.AS_IS), recorder);
        byte[] frame = "2\r\n5\r\nhel\nl\r\n3\r\nabc\r\n".getBytes(StandardCharsets.US_ASCII);
        String content = "5\r\nhel\nl\r\n3\r\nabc\r\n";
        Socket client = this.fixture.connect(server, "framed");
        OutputStream out = client.getOutputStream();
        for (int split = 1; split < frame.length; split++) {
            sendAndAwaitRead(out, Arrays.copyOfRange(frame, 0, split), recorder);
            ByteArrayOutputStream rest = new ByteArrayOutputStream();
            rest.write(frame, split, frame.length - split);
            rest.write(frame, 0, frame.length);
            sendAndAwaitRead(out, rest.toByteArray(), recorder);
            int expected = 2 * split;
            ServerFixture.await(() -> recorder.frames.size() == expected || !recorder.errors.isEmpty(), "both frames of split " + split);
            assertThat(recorder.errors).isEmpty();
        }
        assertThat(recorder.frames).hasSize(2 * (frame.length - 1)).containsOnly(content);
        assertThat(recorder.connection().framingPartial()).isNull();
    }

    /** A frame announced longer than the max-frame-size is refused as the announcement arrives, not once that much was read. */
    @Test
    void aFrameAnnouncedLongerThanTheLimitIsRefusedAtOnce() throws Exception {
        FrameRecorder recorder = new FrameRecorder();
        SocketServer server = start(Framing.of(new BulkList(), FrameEncoder.AS_IS), recorder);
        Socket client = this.fixture.connect(server, "framed");
        client.getOutputStream().write("1\r\n100000\r\nabc".getBytes(StandardCharsets.US_ASCII));
        assertClosedByServer(client);
        assertThat(recorder.errors).singleElement().extracting(Throwable::getMessage)
                .isEqualTo("Listener 'framed': a frame of at least 100013 bytes, over its max-frame-size of 65536 bytes");
        assertThat(((FramingException) recorder.errors.get(0)).reason()).isEqualTo(FramingException.Reason.TOO_LARGE);
        Socket next = this.fixture.connect(server, "framed");
        next.getOutputStream().write("1\r\n2\r\nok\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(next.getInputStream().readNBytes(7), StandardCharsets.US_ASCII)).as("another connection's frame, echoed")
                .isEqualTo("2\r\nok\r\n");
    }

    @Test
    void aLargeBodyWithLineEndsInItArrivesByteForByteInReadsOfEverySize() throws Exception {
        FrameRecorder recorder = new FrameRecorder() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                byte[] bytes = new byte[data.remaining()];
                data.get(bytes);
                this.frames.add(new String(bytes, StandardCharsets.US_ASCII));
            }
        };
        SocketServer server = start(Framing.of(new CountedBodyDecoder(), FrameEncoder.AS_IS).withMaxFrameSize(1024 * 1024), recorder);
        Socket client = this.fixture.connect(server, "framed");
        OutputStream out = client.getOutputStream();
        java.util.Random random = new java.util.Random(42);
        byte[] body = new byte[300 * 1024];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) ((random.nextInt(16) == 0) ? '\n' : 'a' + random.nextInt(26));
        }
        byte[] header = (body.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] frame = new byte[header.length + body.length + 2];
        System.arraycopy(header, 0, frame, 0, header.length);
        System.arraycopy(body, 0, frame, header.length, body.length);
        frame[frame.length - 2] = '\r';
        frame[frame.length - 1] = '\n';
        // Two frames, each in pieces of varied size, each piece a read of its own.
        for (int round = 0; round < 2; round++) {
            int at = 0;
            while (at < frame.length) {
                int piece = Math.min(frame.length - at, 1 + random.nextInt(64 * 1024));
                sendAndAwaitRead(out, Arrays.copyOfRange(frame, at, at + piece), recorder);
                at += piece;
            }
        }
        ServerFixture.await(() -> recorder.frames.size() == 2 || !recorder.errors.isEmpty(), "two frames or an error");
        assertThat(recorder.errors).isEmpty();
        String expected = new String(body, StandardCharsets.US_ASCII);
        assertThat(recorder.frames).hasSize(2).allSatisfy(text -> assertThat(text).isEqualTo(expected));
    }

    @Test
    void aReplyWrittenOnAHandlerExecutorLeavesBeforeTheCallEnds() throws Exception {
        assumeFalse(MisbehavingBackend.asked(), "a reply leaves during the call as far as the socket takes it at once: a short write sends the rest after");
        CountDownLatch release = new CountDownLatch(1);
        FrameRecorder acknowledging = new FrameRecorder() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                connection.write(ByteBuffer.wrap("ack".getBytes(StandardCharsets.US_ASCII)));
                awaitQuietly(release);
            }
        };
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("framed").framing(Framing.line()).handlerExecutor(this.executor)
                .handler(acknowledging).build());
        Socket client = this.fixture.connect(server, "framed");
        // The call is held up to 10 s; the acknowledgement must come well before.
        client.setSoTimeout(3000);
        client.getOutputStream().write("slow work\n".getBytes(StandardCharsets.US_ASCII));
        try {
            assertThat(readLine(client)).as("the acknowledgement, while the call still runs").isEqualTo("ack");
        }
        finally {
            release.countDown();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void anEndlessLineIsCutOffAtTheLimitHavingReadLittleOfIt() throws Exception {
        FrameRecorder recorder = new FrameRecorder();
        SocketServer server = start(Framing.line(), recorder);
        Socket client = this.fixture.connect(server, "framed");
        OutputStream out = client.getOutputStream();
        byte[] chunk = new byte[64 * 1024];
        Arrays.fill(chunk, (byte) 'x');
        long sent = 0;
        try {
            // Up to 100 MB without a line end; the server aborts the connection long before.
            while (sent < 100L * 1024 * 1024) {
                out.write(chunk);
                sent += chunk.length;
            }
        }
        catch (IOException expected) {
            // reset by the server
        }
        ServerFixture.await(() -> !recorder.errors.isEmpty(), "the framing error reached the handler");
        assertThat(recorder.errors.get(0)).hasMessageContaining("within 65536 bytes");
        assertThat(this.received.get()).as("bytes the server read of the endless line").isLessThan(4L * 64 * 1024);
        assertThat(sent).as("bytes the client could send before the abort").isLessThan(100L * 1024 * 1024);
    }

    @Test
    void theRepliesQueuedBeforeARefusalAndItsAnswerReachAPeerThatWentOnSending() throws Exception {
        // Four lines answered in bulk, then an endless one: the handler answers the refusal with an error
        // line, behind the replies still queued for the peer's small window; the peer sends more. What it
        // sent after the refused bytes is never read: a close with it unread resets, and a reset drops what the socket
        // had not sent.
        int reply = 64 * 1024;
        CountDownLatch refused = new CountDownLatch(1);
        ConnectionHandler handler = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                data.position(data.limit());
                connection.write(ByteBuffer.allocate(reply));
            }

            @Override
            public void onError(Connection connection, Throwable error) {
                connection.write(ByteBuffer.wrap("-ERR line too long".getBytes(StandardCharsets.US_ASCII)));
                refused.countDown();
            }
        };
        // (A small send buffer keeps the replies in the connection's queue until the peer reads them.)
        SocketServer server = this.fixture.start(List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)), this.counting,
                ServerFixture.tcp("framed").framing(Framing.line()).handler(handler)
                        .socketOptions(new SocketOptions(true, 0, 16 * 1024, null, null, null, 0, -1)).build());
        Socket client = this.fixture.connectWithSmallWindow(server, "framed");
        OutputStream out = client.getOutputStream();
        out.write("a\na\na\na\n".getBytes(StandardCharsets.US_ASCII));
        byte[] endless = new byte[96 * 1024];
        Arrays.fill(endless, (byte) 'x');
        out.write(endless);
        assertThat(refused.await(10, TimeUnit.SECONDS)).as("the refusal answered").isTrue();
        out.write("and more\n".getBytes(StandardCharsets.US_ASCII));
        Thread.sleep(100);
        InputStream in = client.getInputStream();
        // (Each reply a line: the framing ends it.)
        assertThat(ServerFixture.readCount(in, 4L * (reply + 1))).as("bytes of the replies read").isEqualTo(4L * (reply + 1));
        assertThat(readUntilClosed(in)).as("what follows the replies").isEqualTo("-ERR line too long\n");
    }

    @Test
    void aLengthFieldAnnouncingTwoGigabytesClosesTheConnectionAtOnce() throws Exception {
        FrameRecorder recorder = new FrameRecorder();
        SocketServer server = start(Framing.lengthField(0, 4, ByteOrder.BIG_ENDIAN, 0, 4), recorder);
        Socket client = this.fixture.connect(server, "framed");
        new DataOutputStream(client.getOutputStream()).writeInt(0x8000_0000);
        assertClosedByServer(client);
        assertThat(recorder.errors).singleElement().extracting(Throwable::getMessage)
                .isEqualTo("Listener 'framed': a frame of 2147483652 bytes, over its max-frame-size of 65536 bytes");
        assertThat(((FramingException) recorder.errors.get(0)).reason()).isEqualTo(FramingException.Reason.TOO_LARGE);
        assertServed(server);
    }

    @Test
    void aNegativeLengthClosesTheConnection() throws Exception {
        FrameRecorder recorder = new FrameRecorder();
        SocketServer server = start(Framing.lengthField(0, 8, ByteOrder.BIG_ENDIAN, 0, 8), recorder);
        Socket client = this.fixture.connect(server, "framed");
        new DataOutputStream(client.getOutputStream()).writeLong(-5);
        assertClosedByServer(client);
        assertThat(recorder.errors).singleElement().extracting(Throwable::getMessage)
                .isEqualTo("Listener 'framed': Length field: a negative length, -5");
    }

    @Test
    void octetCountingWithANonDigitClosesTheConnectionNamingTheByte() throws Exception {
        FrameRecorder recorder = new FrameRecorder();
        SocketServer server = start(Framing.octetCounting(), recorder);
        Socket client = this.fixture.connect(server, "framed");
        client.getOutputStream().write("12x hello".getBytes(StandardCharsets.US_ASCII));
        assertClosedByServer(client);
        assertThat(recorder.errors).singleElement().extracting(Throwable::getMessage)
                .isEqualTo("Listener 'framed': Octet counting: expected a digit or a space at byte 3 of the frame, found 'x'");
        assertThat(this.framingFailures).hasValue(1);
    }

    @Test
    void framesReachAHandlerOnAnExecutorWhole() throws Exception {
        FrameRecorder recorder = new FrameRecorder();
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("framed").framing(Framing.line()).handlerExecutor(this.executor)
                .handler(recorder).build());
        Socket client = this.fixture.connect(server, "framed");
        OutputStream out = client.getOutputStream();
        out.write("first\nsec".getBytes(StandardCharsets.US_ASCII));
        assertThat(readLine(client)).isEqualTo("first");
        out.write("ond\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(readLine(client)).isEqualTo("second");
        assertThat(recorder.frames).containsExactly("first", "second");
    }

    private void assertServed(SocketServer server) throws IOException {
        Socket next = this.fixture.connect(server, "framed");
        next.getOutputStream().write(new byte[] { 0, 0, 0, 2, 'o', 'k' });
        assertThat(next.getInputStream().readNBytes(6)).containsExactly(0, 0, 0, 2, 'o', 'k');
    }

    private void sendAndAwaitRead(OutputStream out, String text) throws Exception {
        sendAndAwaitRead(out, text.getBytes(StandardCharsets.US_ASCII));
    }

    /** Sends bytes and waits until the server read them, so that each send is a read of its own. */
    private void sendAndAwaitRead(OutputStream out, byte[] bytes) throws Exception {
        long before = this.received.get();
        out.write(bytes);
        out.flush();
        ServerFixture.await(() -> this.received.get() >= before + bytes.length, "the server read " + bytes.length + " bytes");
    }

    private void sendAndAwaitRead(OutputStream out, String text, FrameRecorder recorder) throws Exception {
        sendAndAwaitRead(out, text.getBytes(StandardCharsets.US_ASCII), recorder);
    }

    /** Sends bytes and waits until the server read them or the handler was told of an error; fails on the error. */
    private void sendAndAwaitRead(OutputStream out, byte[] bytes, FrameRecorder recorder) throws Exception {
        long before = this.received.get();
        out.write(bytes);
        out.flush();
        ServerFixture.await(() -> this.received.get() >= before + bytes.length || !recorder.errors.isEmpty(),
                "the server read " + bytes.length + " bytes");
        assertThat(recorder.errors).as("errors told to the handler").isEmpty();
    }

    private static void assertClosedByServer(Socket client) {
        try {
            assertThat(client.getInputStream().read()).isEqualTo(-1);
        }
        catch (IOException reset) {
            // aborted: a reset is a close too
        }
    }

    /**
     * A header of decimal digits and CRLF, then as many bytes of body, then CRLF (memcached's
     * storage commands, reduced): the frame's length is told as soon as the header line is read,
     * and the search for the header's end resumes where an earlier call left it, as
     * {@link FrameDecoder#frameLength(ByteBuffer, int)} allows.
     */
    static final class CountedBodyDecoder implements FrameDecoder {

        @Override
        public long frameLength(ByteBuffer in) throws FramingException {
            return frameLength(in, 0);
        }

        @Override
        public long frameLength(ByteBuffer in, int searched) throws FramingException {
            int start = in.position();
            for (int i = start + searched; i < in.limit(); i++) {
                if (in.get(i) == '\n') {
                    return (i + 1 - start) + length(in, start, i) + 2;
                }
            }
            return MORE;
        }

        @Override
        public int headerLength(ByteBuffer frame) {
            int start = frame.position();
            int i = start;
            while (frame.get(i) != '\n') {
                i++;
            }
            return i + 1 - start;
        }

        @Override
        public int trailerLength(ByteBuffer frame) {
            return 2;
        }

        private static long length(ByteBuffer in, int start, int lineFeed) throws FramingException {
            if (lineFeed - start < 2 || in.get(lineFeed - 1) != '\r') {
                throw new FramingException("no CRLF after the length");
            }
            long length = 0;
            for (int i = start; i < lineFeed - 1; i++) {
                byte b = in.get(i);
                if (b < '0' || b > '9' || length > Integer.MAX_VALUE) {
                    throw new FramingException("not a length: byte " + (b & 0xff) + " at " + (i - start));
                }
                length = length * 10 + (b - '0');
            }
            return length;
        }
    }

    /**
     * A count of lines, {@code N\r\n}, then N lines, each ending with LF: one frame, whose content is
     * the lines. Its parse of an unfinished frame resumes where it got to: it saves the lines still
     * to come and the offset of the next, and counts every byte it looks at.
     */
    static final class LineList implements FrameDecoder {

        final AtomicLong examined = new AtomicLong();

        @Override
        public long frameLength(ByteBuffer in) throws FramingException {
            return frameLength(in, 0, new Progress() {
                @Override
                public long saved() {
                    return 0;
                }

                @Override
                public void save(long state) {
                }
            });
        }

        @Override
        public long frameLength(ByteBuffer in, int searched, Progress progress) throws FramingException {
            int start = in.position();
            long saved = progress.saved();
            int left;
            int offset;
            if (saved == 0) {
                int lineFeed = find(in, start);
                if (lineFeed < 0) {
                    return MORE;
                }
                left = Integer.parseInt(StandardCharsets.US_ASCII.decode(in.duplicate().limit(lineFeed - 1).position(start)).toString());
                offset = lineFeed + 1 - start;
            }
            else {
                left = (int) (saved >>> 32);
                offset = (int) saved;
            }
            while (left > 0) {
                int lineFeed = find(in, start + offset);
                if (lineFeed < 0) {
                    progress.save(((long) left << 32) | offset);
                    return MORE;
                }
                left--;
                offset = lineFeed + 1 - start;
            }
            return offset;
        }

        private int find(ByteBuffer in, int from) {
            for (int i = from; i < in.limit(); i++) {
                this.examined.incrementAndGet();
                if (in.get(i) == '\n') {
                    return i;
                }
            }
            return -1;
        }

        @Override
        public int headerLength(ByteBuffer frame) {
            int start = frame.position();
            int i = start;
            while (frame.get(i) != '\n') {
                i++;
            }
            return i + 1 - start;
        }
    }

    /**
     * A count of bulks, {@code N\r\n}, then N bulks of {@code length\r\n}, as many bytes, and CRLF
     * (RESP's arrays, reduced): once a bulk's header is read and its body is not all there, it
     * announces the length the frame reaches ({@link FrameDecoder#atLeast}) and saves where that
     * bulk starts, to resume there. It counts its calls.
     */
    static final class BulkList implements FrameDecoder {

        final AtomicLong calls = new AtomicLong();

        @Override
        public long frameLength(ByteBuffer in) throws FramingException {
            throw new UnsupportedOperationException("called with its progress");
        }

        @Override
        public long frameLength(ByteBuffer in, int searched, Progress progress) throws FramingException {
            this.calls.incrementAndGet();
            int start = in.position();
            long saved = progress.saved();
            long left;
            int offset;
            if (saved == 0) {
                int lineFeed = lineFeed(in, start);
                if (lineFeed < 0) {
                    return MORE;
                }
                left = number(in, start, lineFeed);
                offset = lineFeed + 1 - start;
            }
            else {
                left = saved >>> 32;
                offset = (int) saved;
            }
            while (left > 0) {
                int lineFeed = lineFeed(in, start + offset);
                if (lineFeed < 0) {
                    progress.save((left << 32) | offset);
                    return MORE;
                }
                long end = (lineFeed + 1 - start) + number(in, start + offset, lineFeed) + 2;
                if (end > in.remaining()) {
                    progress.save((left << 32) | offset);
                    return FrameDecoder.atLeast(end);
                }
                left--;
                offset = (int) end;
            }
            return offset;
        }

        private static int lineFeed(ByteBuffer in, int from) {
            for (int i = from; i < in.limit(); i++) {
                if (in.get(i) == '\n') {
                    return i;
                }
            }
            return -1;
        }

        private static long number(ByteBuffer in, int from, int lineFeed) {
            return Long.parseLong(StandardCharsets.US_ASCII.decode(in.duplicate().limit(lineFeed - 1).position(from)).toString());
        }

        @Override
        public int headerLength(ByteBuffer frame) {
            return lineFeed(frame, frame.position()) + 1 - frame.position();
        }
    }

    /** Lines ending with LF, found by a search that starts after the bytes searched before; counts the bytes it looks at. */
    static final class CountingLines implements FrameDecoder {

        final AtomicLong examined = new AtomicLong();

        @Override
        public long frameLength(ByteBuffer in) {
            return frameLength(in, 0);
        }

        @Override
        public long frameLength(ByteBuffer in, int searched) {
            for (int i = in.position() + searched; i < in.limit(); i++) {
                this.examined.incrementAndGet();
                if (in.get(i) == '\n') {
                    return i + 1 - in.position();
                }
            }
            return MORE;
        }
    }

    /** Records each frame as text and echoes it. */
    static class FrameRecorder implements ConnectionHandler {

        final List<String> frames = new CopyOnWriteArrayList<>();

        final List<Throwable> errors = new CopyOnWriteArrayList<>();

        private volatile Connection last;

        @Override
        public void onData(Connection connection, ByteBuffer data) {
            this.last = connection;
            byte[] bytes = new byte[data.remaining()];
            data.duplicate().get(bytes);
            this.frames.add(new String(bytes, StandardCharsets.US_ASCII));
            connection.write(data);
        }

        @Override
        public void onOpen(Connection connection) {
            this.last = connection;
        }

        @Override
        public void onError(Connection connection, Throwable error) {
            this.errors.add(error);
        }

        TcpConnection connection() throws InterruptedException {
            ServerFixture.await(() -> this.last != null, "a connection opened");
            return (TcpConnection) this.last;
        }
    }
}
