package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.InvalidMessageException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.engine.MessagesTest.Mirror;
import dev.sockstate.server.engine.MessagesTest.Point;
import dev.sockstate.server.engine.MessagesTest.PointMapper;
import dev.sockstate.server.engine.PipelineTest.CaseFlipAndBracket;
import dev.sockstate.server.engine.PipelineTest.Handshake;
import dev.sockstate.server.engine.PipelineTest.Lines;
import dev.sockstate.server.engine.PipelineTest.RecordingHandler;
import dev.sockstate.server.engine.turn.SocketTurn;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.framing.FramingException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link EmbeddedConnection}: a listener's handler, stages and framing, run as a connection runs
 * them, without a socket. The handlers and stages are those the tests on real sockets use.
 */
class EmbeddedConnectionTest {

    private static ListenerSettings.Builder tcp(String name) {
        return ListenerSettings.tcp(name).address(InetAddress.getLoopbackAddress()).portNumber(7000);
    }

    @Test
    void anEchoHandlerSendsBackWhatArrived() {
        EchoHandler echo = new EchoHandler();
        try (EmbeddedConnection embedded = EmbeddedConnection.open(tcp("echo").handler(echo).build())) {
            assertThat(echo.opened).as("onOpen ran as the connection opened").hasValue(1);
            assertThat(embedded.readOutbound()).as("nothing sent before anything arrived").isNull();
            embedded.writeInbound("hello");
            assertThat(embedded.readOutboundText()).isEqualTo("hello");
            embedded.writeInbound(new byte[] { 1, 2, 3 });
            assertThat(embedded.readOutbound()).isEqualTo(ByteBuffer.wrap(new byte[] { 1, 2, 3 }));
            assertThat(embedded.readOutbound()).isNull();
            assertThat(embedded.isOpen()).isTrue();
        }
        assertThat(echo.closed).as("onClose ran as the harness closed").hasValue(1);
        assertThat(echo.errors).isEmpty();
    }

    @Test
    void lineFramingCutsOneWriteIntoFramesAndJoinsAFrameSplitAcrossTwoWrites() {
        RecordingHandler handler = new RecordingHandler();
        EmbeddedConnection embedded = EmbeddedConnection.open(tcp("lines").framing(Framing.line()).handler(handler).build());
        embedded.writeInbound("one\ntwo\nthr");
        assertThat(handler.messages).containsExactly("one", "two");
        embedded.writeInbound("ee\r\n");
        assertThat(handler.messages).containsExactly("one", "two", "three");
    }

    @Test
    void theRepliesToOneReadsFramesLeaveInOneSendAsOnAWorker() {
        EmbeddedConnection embedded = EmbeddedConnection.open(tcp("lines").framing(Framing.line())
                .handler(new EchoHandler()).build());
        embedded.writeInbound("a\nb\nc\n");
        assertThat(embedded.readOutboundText()).isEqualTo("a\nb\nc\n");
        assertThat(embedded.readOutbound()).isNull();
    }

    @Test
    void aMessageHandlerReadsFramesThroughTheListenersMapperAndItsRepliesGoOutFramed() {
        EmbeddedConnection embedded = EmbeddedConnection.open(tcp("points").framing(Framing.line())
                .messageMapper(new PointMapper()).handler(new Mirror()).build());
        embedded.writeInbound("1,2\n30,");
        assertThat(embedded.readOutboundText()).isEqualTo("2,1\n");
        embedded.writeInbound("40\n");
        assertThat(embedded.readOutboundText()).isEqualTo("40,30\n");
        embedded.connection().send(new Point(7, 8));
        assertThat(embedded.readOutboundText()).as("sent by the test, outside a handler call").isEqualTo("7,8\n");
    }

    @Test
    void aMessageThatDoesNotReadReachesOnErrorAndClosesTheConnection() {
        Mirror mirror = new Mirror();
        EmbeddedConnection embedded = EmbeddedConnection.open(tcp("points").framing(Framing.line())
                .messageMapper(new PointMapper()).handler(mirror).build());
        embedded.writeInbound("not a point\n5,6\n");
        assertThat(embedded.errors()).singleElement().isInstanceOf(InvalidMessageException.class)
                .extracting(Throwable::getMessage).isEqualTo("Listener 'points': a message of 11 bytes does not read as "
                        + Point.class.getName() + ": not x,y: not a point");
        assertThat(mirror.errors).isEqualTo(embedded.errors());
        assertThat(embedded.readAllOutbound()).as("the frame after the bad one is not read").isEmpty();
        assertThat(embedded.isClosed()).isTrue();
    }

    @Test
    void aFrameOverTheMaxFrameSizeReachesOnErrorAsAFramingExceptionAndTheConnectionClosesOnceTheAnswerIsSent() {
        AtomicInteger closes = new AtomicInteger();
        ConnectionHandler handler = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                connection.write(data);
            }

            @Override
            public void onError(Connection connection, Throwable error) {
                connection.write("too long".getBytes(StandardCharsets.US_ASCII));
            }

            @Override
            public void onClose(Connection connection) {
                closes.incrementAndGet();
            }
        };
        EmbeddedConnection embedded = EmbeddedConnection.open(tcp("short").framing(Framing.line().withMaxFrameSize(8))
                .handler(handler).build());
        embedded.writeInbound("ok\n0123456789");
        assertThat(embedded.errors()).singleElement().isInstanceOf(FramingException.class).extracting(Throwable::getMessage)
                .isEqualTo("Listener 'short': no frame end (line) within 8 bytes, its max-frame-size");
        assertThat(embedded.readAllOutboundText()).as("the reply to the good frame, then the answer to the bad one")
                .isEqualTo("ok\ntoo long\n");
        assertThat(embedded.isOpen()).isFalse();
        assertThat(embedded.isClosed()).isTrue();
        assertThat(closes).hasValue(1);
        embedded.writeInbound("more\n");
        assertThat(embedded.readOutbound()).as("a closed connection reads nothing more").isNull();
    }

    @Test
    void aStageTransformsTheBytesBothWays() {
        EmbeddedConnection embedded = EmbeddedConnection.open(tcp("flip").stage(CaseFlipAndBracket::new)
                .handler(new EchoHandler()).build());
        embedded.writeInbound("abc");
        assertThat(embedded.readOutboundText()).isEqualTo("[ABC]");
    }

    @Test
    void aStageHoldsTheOpenBackUntilItsHandshakeEnds() {
        RecordingHandler handler = new RecordingHandler();
        handler.greeting = "welcome\n";
        EmbeddedConnection embedded = EmbeddedConnection.open(tcp("greet").stage(Handshake::new).stage(Lines::new)
                .handler(handler).build());
        assertThat(embedded.readOutboundText()).as("written by the stage as the connection opened").isEqualTo("HELLO\n");
        assertThat(handler.opened).as("onOpen before the handshake ended").isFalse();
        embedded.writeInbound("OK\nfirst\n");
        assertThat(embedded.readOutboundText()).as("the handler's greeting, once the handshake ended").isEqualTo("welcome\n");
        assertThat(handler.messages).containsExactly("first");
    }

    @Test
    void aHandshakeThatFailsClosesTheConnectionBeforeTheHandlerHearsOfIt() {
        RecordingHandler handler = new RecordingHandler();
        EmbeddedConnection embedded = EmbeddedConnection.open(tcp("greet").stage(Handshake::new).handler(handler).build());
        embedded.writeInbound("NO\n");
        assertThat(embedded.isClosed()).isTrue();
        assertThat(handler.opens).hasValue(0);
        assertThat(handler.closed).as("no onClose without onOpen").hasValue(0);
        assertThat(embedded.errors()).as("no onError without onOpen").isEmpty();
    }

    @Test
    void aHangupReachesTheHandlerAfterWhatArrivedBeforeIt() {
        List<String> heard = new CopyOnWriteArrayList<>();
        ConnectionHandler handler = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
                heard.add(StandardCharsets.US_ASCII.decode(data).toString());
            }

            @Override
            public void onHangup(Connection connection) {
                heard.add("hangup");
                connection.write("bye".getBytes(StandardCharsets.US_ASCII));
                connection.close();
            }

            @Override
            public void onClose(Connection connection) {
                heard.add("close");
            }
        };
        EmbeddedConnection embedded = EmbeddedConnection.open(tcp("bye").handler(handler).build());
        embedded.writeInbound("last words");
        embedded.hangup();
        assertThat(heard).containsExactly("last words", "hangup", "close");
        assertThat(embedded.readAllOutboundText()).isEqualTo("bye");
        assertThat(embedded.isClosed()).isTrue();
        assertThatIllegalStateException().isThrownBy(() -> embedded.writeInbound("after the FIN"));
    }

    @Test
    void aHandlerMayWriteOnAfterTheHangupAndShutItsOutput() {
        ConnectionHandler halfClose = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
            }

            @Override
            public void onHangup(Connection connection) {
                connection.write("done".getBytes(StandardCharsets.US_ASCII));
                connection.shutdownOutput();
            }
        };
        EmbeddedConnection embedded = EmbeddedConnection.open(tcp("half").handler(halfClose).build());
        embedded.hangup();
        assertThat(embedded.readOutboundText()).isEqualTo("done");
        assertThat(embedded.isOutputShutdown()).isTrue();
        assertThat(embedded.isOpen()).as("shut both ways, yet not closed by anyone").isTrue();
        embedded.close();
        assertThat(embedded.isClosed()).isTrue();
    }

    @Test
    void aHalfClosedConnectionWithNothingToSendWaitsAndThenWritesAndClosesWhenAsked() {
        ConnectionHandler keeper = new ConnectionHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) {
            }

            @Override
            public void onHangup(Connection connection) {
                // Neither a reply nor a FIN: the connection stays half-closed, watching nothing.
            }
        };
        EmbeddedConnection embedded = EmbeddedConnection.open(tcp("half").handler(keeper).build());
        embedded.hangup();
        assertThat(embedded.isOpen()).isTrue();
        embedded.connection().write("late".getBytes(StandardCharsets.US_ASCII));
        assertThat(embedded.readOutboundText()).isEqualTo("late");
        embedded.close();
        assertThat(embedded.isClosed()).isTrue();
    }

    @Test
    void aResetReachesOnErrorAndAbortsTheConnection() {
        EchoHandler echo = new EchoHandler();
        EmbeddedConnection embedded = EmbeddedConnection.open(tcp("echo").handler(echo).build());
        embedded.reset();
        assertThat(embedded.errors()).singleElement().isInstanceOfSatisfying(NativeIoException.class,
                (reset) -> assertThat(reset.error()).isEqualTo(NativeError.CONNECTION_RESET));
        assertThat(embedded.isClosed()).isTrue();
        assertThat(echo.closed).hasValue(1);
    }

    @Test
    void aHandlerThatThrowsHasItsConnectionAbortedAndCounted() {
        ConnectionHandler failing = (connection, data) -> {
            throw new IllegalStateException("the handler's own bug");
        };
        EmbeddedConnection embedded = EmbeddedConnection.open(tcp("failing").handler(failing).build());
        embedded.writeInbound("x");
        assertThat(embedded.isClosed()).isTrue();
        assertThat(embedded.handlerErrors()).isEqualTo(1);
        assertThat(embedded.errors()).as("a handler's throw is logged, not told to its onError").isEmpty();
    }

    @Test
    void theConnectionNamesItsListenerAndMadeUpAddressesAndKeepsAttributesAndAnAttachment() {
        ConnectionHandler handler = new ConnectionHandler() {
            @Override
            public void onOpen(Connection connection) {
                connection.attributes().put("user", "ann");
                connection.attach(List.of("state"));
            }

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                connection.write((connection.attributes().get("user") + "@" + ((InetSocketAddress) connection.remoteAddress()).getPort())
                        .getBytes(StandardCharsets.US_ASCII));
            }
        };
        InetSocketAddress peer = new InetSocketAddress("192.0.2.7", 40000);
        EmbeddedConnection embedded = EmbeddedConnection.builder(tcp("who").handler(handler).build()).remoteAddress(peer).open();
        Connection connection = embedded.connection();
        assertThat(connection.id()).isEqualTo(1);
        assertThat(connection.listenerName()).isEqualTo("who");
        assertThat(connection.localAddress()).isEqualTo(new InetSocketAddress(InetAddress.getLoopbackAddress(), 7000));
        assertThat(connection.remoteAddress()).isEqualTo(peer);
        assertThat(connection.attachment()).isEqualTo(List.of("state"));
        embedded.writeInbound("?");
        assertThat(embedded.readOutboundText()).isEqualTo("ann@40000");
        EmbeddedConnection defaults = EmbeddedConnection.open(ListenerSettings.tcp("any").handler(handler).build());
        assertThat(defaults.connection().remoteAddress())
                .isEqualTo(new InetSocketAddress(InetAddress.getLoopbackAddress(), EmbeddedConnection.DEFAULT_REMOTE_PORT_NUMBER));
        assertThat(defaults.connection().localAddress()).isEqualTo(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    @Test
    void aUnixListenersEmbeddedConnectionIsOnItsPathFromAnUnnamedPeer() {
        EmbeddedConnection unix = EmbeddedConnection.open(ListenerSettings.tcp("local").unixPath(java.nio.file.Path.of("/run/app/local.sock"))
                .handler(new EchoHandler()).build());
        assertThat(unix.connection().localAddress()).isEqualTo(java.net.UnixDomainSocketAddress.of("/run/app/local.sock"));
        assertThat(unix.connection().remoteAddress()).isEqualTo(java.net.UnixDomainSocketAddress.of(""));
        assertThat(unix.connection().peerCredentials()).as("no process connected").isNull();
        unix.writeInbound("echo");
        assertThat(unix.readOutboundText()).isEqualTo("echo");
    }

    @Test
    void theHandlerExecutorIsNotUsedAndEachWriteLeavesAtOnceAsOnAnExecutor() {
        AtomicInteger executed = new AtomicInteger();
        AtomicReference<Thread> caller = new AtomicReference<>();
        EchoHandler echo = new EchoHandler() {
            @Override
            public void onData(Connection connection, ByteBuffer data) throws Exception {
                caller.set(Thread.currentThread());
                super.onData(connection, data);
            }
        };
        EmbeddedConnection embedded = EmbeddedConnection.open(tcp("pooled").framing(Framing.line())
                .handlerExecutor((task) -> executed.incrementAndGet()).handler(echo).build());
        embedded.writeInbound("a\nb\n");
        assertThat(embedded.readOutboundText()).isEqualTo("a\n");
        assertThat(embedded.readOutboundText()).isEqualTo("b\n");
        assertThat(caller).hasValue(Thread.currentThread());
        assertThat(executed).hasValue(0);
    }

    @Test
    void writesFromAnotherThreadWaitForTheHarnessToRunWhatIsPending() throws Exception {
        EmbeddedConnection embedded = EmbeddedConnection.open(tcp("late").handler(new EchoHandler()).build());
        Thread other = new Thread(() -> {
            embedded.connection().write("late".getBytes(StandardCharsets.US_ASCII));
            embedded.connection().shutdownOutput();
        });
        other.start();
        other.join();
        assertThat(embedded.connection().pendingWriteBytes()).as("waiting for the owning thread").isEqualTo(4);
        embedded.runPending();
        assertThat(embedded.isOutputShutdown()).isTrue();
        assertThat(embedded.readOutboundText()).isEqualTo("late");
    }

    @ParameterizedTest
    @EnumSource(Trigger.class)
    void aWriteLongerThanTheReadBufferArrivesInSeveralReadsWithEveryTrigger(Trigger trigger) {
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            lines.append("line ").append(i).append('\n');
        }
        RecordingHandler handler = new RecordingHandler();
        EmbeddedConnection embedded = EmbeddedConnection.builder(tcp("lines").trigger(trigger).framing(Framing.line())
                .handler(handler).build()).readBufferSize(64).open();
        embedded.writeInbound(lines.toString());
        assertThat(handler.messages).hasSize(200).startsWith("line 0").endsWith("line 199");
        embedded.hangup();
        assertThat(handler.hangups).hasValue(1);
        assertThat(embedded.isClosed()).isTrue();
    }

    @Test
    void theExclusiveEdgeModeReadsOnAfterSpendingItsReadBudget() {
        ListenerSettings settings = tcp("edge").exclusiveEdge(true).handler(new EchoHandler()).build();
        EmbeddedConnection embedded = EmbeddedConnection.builder(settings).readBufferSize(64).open();
        byte[] data = new byte[64 * (SocketTurn.TURN_BUDGET * 2 + 1)];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) i;
        }
        embedded.writeInbound(data);
        assertThat(embedded.readAllOutbound()).isEqualTo(data);
    }

    @Test
    void aUdpListenerHasNoEmbeddedConnection() {
        ListenerSettings udp = ListenerSettings.udp("udp").handler((endpoint, data, sender) -> {
        }).build();
        assertThatIllegalArgumentException().isThrownBy(() -> EmbeddedConnection.open(udp))
                .withMessage("Listener 'udp' is a UDP listener; an embedded connection is a TCP listener's");
    }
}
