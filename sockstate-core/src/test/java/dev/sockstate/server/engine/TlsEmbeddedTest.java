package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Setting;
import dev.sockstate.server.engine.tls.TlsRecords;
import dev.sockstate.server.engine.tls.TlsStage;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.tls.Tls;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The TLS stage without a socket: an {@link EmbeddedConnection} of a TLS listener and a client
 * engine in memory, whose records the test hands over, here one byte at a time. The engine's tasks
 * run inline (a direct executor), so the stage resumes on the harness's own thread.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsEmbeddedTest {

    private final TlsCertificates certificates = TlsCertificates.get();

    TlsEmbeddedTest() throws Exception {
    }

    private EmbeddedConnection open(Tls tls, ConnectionHandler handler) {
        return EmbeddedConnection.open(ListenerSettings.tcp("tls").tls(tls.withTaskExecutor(Runnable::run)).framing(Framing.line())
                .handler(handler).build());
    }

    /** Runs the handshake, handing each record over in pieces of {@code piece} bytes. */
    private static void handshake(EmbeddedConnection embedded, TlsPeer peer, int piece) throws Exception {
        for (int round = 0; round < 10 && !peer.established(); round++) {
            writeInPieces(embedded, peer.produce(), piece);
            peer.consume(embedded.readAllOutbound());
        }
        writeInPieces(embedded, peer.produce(), piece);
        assertThat(peer.established()).as("the client's handshake ended").isTrue();
    }

    private static void writeInPieces(EmbeddedConnection embedded, byte[] bytes, int piece) {
        for (int at = 0; at < bytes.length; at += piece) {
            embedded.writeInbound(Arrays.copyOfRange(bytes, at, Math.min(bytes.length, at + piece)));
        }
    }

    @Test
    void recordsHandedOverOneByteAtATimeAreHeldUntilWholeAndTheHandlerSeesLines() throws Exception {
        for (String protocol : List.of("TLSv1.3", "TLSv1.2")) {
            EchoHandler handler = new EchoHandler();
            EmbeddedConnection embedded = open(this.certificates.server("server"), handler);
            TlsPeer peer = new TlsPeer(this.certificates.context(null), protocol);
            handshake(embedded, peer, 1);
            assertThat(handler.opened.get()).as("onOpen once the handshake ended").isEqualTo(1);
            assertThat(embedded.connection().tlsSession().getProtocol()).isEqualTo(protocol);
            writeInPieces(embedded, peer.seal("one\ntwo\n"), 1);
            assertThat(peer.consume(embedded.readAllOutbound())).isEqualTo("one\ntwo\n");
            assertThat(((TlsStage) ((TcpConnection) embedded.connection()).firstStage()).holdsBuffers())
                    .as("an idle connection holds no buffer").isFalse();
            embedded.close();
            assertThat(embedded.isClosed()).isTrue();
            assertThat(handler.closed.get()).isEqualTo(1);
        }
    }

    @Test
    void anUnfinishedRecordIsHeldOnlyUntilItIsWhole() throws Exception {
        EmbeddedConnection embedded = open(this.certificates.server("server"), new EchoHandler());
        TlsPeer peer = new TlsPeer(this.certificates.context(null), "TLSv1.3");
        handshake(embedded, peer, 4096);
        TlsStage stage = (TlsStage) ((TcpConnection) embedded.connection()).firstStage();
        byte[] records = peer.seal("a line split across reads\n");
        embedded.writeInbound(Arrays.copyOf(records, records.length - 3));
        assertThat(stage.holdsBuffers()).as("half a record").isTrue();
        embedded.writeInbound(Arrays.copyOfRange(records, records.length - 3, records.length));
        assertThat(stage.holdsBuffers()).as("the record was whole").isFalse();
        assertThat(peer.consume(embedded.readAllOutbound())).isEqualTo("a line split across reads\n");
    }

    @Test
    void whileTheEnginesTasksRunTheServerReadsNothingMoreAndWhatWaitsIsJudgedAfter() throws Exception {
        List<Runnable> tasks = new ArrayList<>();
        EmbeddedConnection embedded = EmbeddedConnection.open(ListenerSettings.tcp("tls")
                .tls(Tls.server(this.certificates.context("server")).withTaskExecutor(tasks::add)).handler(new EchoHandler()).build());
        embedded.writeInbound(new TlsPeer(this.certificates.context(null), "TLSv1.3").produce());
        assertThat(tasks).as("the hello went to a task, which is held back").isNotEmpty();
        TcpConnection connection = (TcpConnection) embedded.connection();
        TlsStage stage = (TlsStage) connection.firstStage();
        embedded.writeInbound(new byte[300 * 1024]);
        assertThat(connection.holdsInput()).as("the input is held while the task runs").isTrue();
        assertThat(stage.holdsBuffers()).as("nothing of what came after the hello was read").isFalse();
        assertThat(embedded.isOpen()).isTrue();
        for (int i = 0; i < 10 && !tasks.isEmpty(); i++) {
            tasks.remove(0).run();
            embedded.runPending();
        }
        assertThat(embedded.isOpen()).as("read once the task ran: no TLS, refused").isFalse();
    }

    @Test
    void beforeItsHandshakeEndedAPeerCannotMakeTheServerHoldMoreThanAFlight() throws Exception {
        SSLContext alpha = this.certificates.context("alpha");
        // Contexts chosen by server name: the ClientHello is held until whole, before any engine sees it.
        EmbeddedConnection embedded = EmbeddedConnection.open(ListenerSettings.tcp("tls")
                .tls(Tls.server(this.certificates.context("server")).withServerNames(java.util.Map.of("alpha.test", () -> alpha)))
                .handler(new EchoHandler()).build());
        // A ClientHello that claims to go on for almost 60 KiB, in records of 16 KiB: held until whole,
        // but its records' headers make it more than a flight's worth.
        byte[] record = new byte[5 + 16 * 1024];
        record[0] = TlsRecords.HANDSHAKE;
        record[1] = 3;
        record[2] = 3;
        record[3] = (byte) (16 * 1024 >> 8);
        record[5] = 1;
        record[7] = (byte) 0xff;
        record[8] = (byte) 0xfc;
        embedded.writeInbound(record);
        assertThat(embedded.isOpen()).as("a flight's worth is held").isTrue();
        record[5] = 0;
        record[7] = 0;
        record[8] = 0;
        for (int i = 0; i < 4 && embedded.isOpen(); i++) {
            embedded.writeInbound(record);
        }
        assertThat(embedded.isOpen()).as("more is refused before the peer is authenticated").isFalse();
    }

    @Test
    void theClientHellosServerNameIsRead() throws Exception {
        TlsPeer peer = new TlsPeer(this.certificates.context(null), "TLSv1.3", "Alpha.Test");
        assertThat(TlsRecords.serverName(TlsRecords.clientHello(ByteBuffer.wrap(peer.produce())))).isEqualToIgnoringCase("alpha.test");
        assertThat(TlsRecords.serverName(TlsRecords.clientHello(ByteBuffer.wrap(new TlsPeer(this.certificates.context(null),
                "TLSv1.2").produce())))).as("no name").isNull();
        assertThat(TlsRecords.serverName(TlsRecords.clientHello(ByteBuffer.wrap(new byte[] {22, 3, 1, 0, 4, 1, 0, 0, 0}))))
                .as("a truncated hello").isNull();
        assertThat(TlsRecords.clientHello(ByteBuffer.wrap(new byte[] {22, 3, 1, 0, 4, 1, 0, 0, 9}))).as("a hello that goes on")
                .isSameAs(TlsRecords.INCOMPLETE);
        assertThat(TlsRecords.clientHello(ByteBuffer.wrap(new byte[] {23, 3, 3, 0, 1, 0}))).as("no handshake").isNull();
    }

    @Test
    void theServerNamePicksTheContextOfAnEmbeddedConnection() throws Exception {
        SSLContext alpha = this.certificates.context("alpha");
        EmbeddedConnection embedded = open(Tls.server(this.certificates.context("server"))
                .withServerNames(Map.of("alpha.test", () -> alpha)), new EchoHandler());
        TlsPeer peer = new TlsPeer(this.certificates.context(null), "TLSv1.3", "alpha.test");
        handshake(embedded, peer, 7);
        assertThat(peer.engine.getSession().getPeerPrincipal().getName()).isEqualTo("CN=alpha.test");
    }

    @Test
    void aRealClientHelloCutIntoOneByteRecordsPicksItsContextAndTheHandshakeEnds() throws Exception {
        SSLContext alpha = this.certificates.context("alpha");
        EmbeddedConnection embedded = open(Tls.server(this.certificates.context("server"))
                .withServerNames(Map.of("alpha.test", () -> alpha)), new EchoHandler());
        TlsPeer peer = new TlsPeer(this.certificates.context(null), "TLSv1.3", "alpha.test");
        byte[] hello = peer.produce();
        ByteBuffer message = ByteBuffer.wrap(hello, TlsRecords.HEADER, hello.length - TlsRecords.HEADER);
        ByteBuffer records = ByteBuffer.allocate(message.remaining() * (TlsRecords.HEADER + 1));
        while (message.hasRemaining()) {
            records.put(TlsRecords.HANDSHAKE).put(hello[1]).put(hello[2]).putShort((short) 1).put(message.get());
        }
        writeInPieces(embedded, Arrays.copyOf(records.array(), records.position()), 6);
        peer.consume(embedded.readAllOutbound());
        handshake(embedded, peer, 7);
        assertThat(peer.engine.getSession().getPeerPrincipal().getName()).as("the certificate of the context the name picked")
                .isEqualTo("CN=alpha.test");
    }

    @Test
    void aClientHelloSpreadOverSmallRecordsAndReadsCostsInProportionToItsBytesWhereTheServerNameIsLookedFor() throws Exception {
        SSLContext server = this.certificates.context("server");
        Tls tls = Tls.server(server).withServerNames(Map.of("alpha.test", () -> server)).withTaskExecutor(Runnable::run);
        // A record a byte of the message: 6 bytes of records for each, 48 KB of them at the larger size.
        LinearCost.assertLinear("a ClientHello in records of 1 byte, a record a read", 1024, (size) -> {
            try (EmbeddedConnection embedded = open(tls, new EchoHandler())) {
                writeInPieces(embedded, helloInRecords(size, 1), 6);
            }
        });
    }

    /**
     * @return a ClientHello's handshake message of {@code size} bytes after its header (zeros, which
     * no engine takes), cut into handshake records of {@code payload} bytes
     */
    private static byte[] helloInRecords(int size, int payload) {
        byte[] message = new byte[4 + size];
        message[0] = 1;
        message[1] = (byte) (size >>> 16);
        message[2] = (byte) (size >>> 8);
        message[3] = (byte) size;
        ByteBuffer records = ByteBuffer.allocate(message.length + (message.length / payload + 1) * 5);
        for (int at = 0; at < message.length; at += payload) {
            int length = Math.min(payload, message.length - at);
            records.put((byte) 22).put((byte) 3).put((byte) 1).putShort((short) length).put(message, at, length);
        }
        return Arrays.copyOf(records.array(), records.position());
    }

    @Test
    void tlsIsRefusedOnAUdpListenerAndItsSettingsAreChecked() throws Exception {
        SSLContext context = this.certificates.context("server");
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ListenerSettings.udp("udp").tls(Tls.server(context)).handler((endpoint, datagram, from) -> {
                }).build())
                .satisfies((refused) -> assertThat(refused.setting()).isEqualTo(Setting.TLS))
                .withMessageContaining("Listener 'udp': tls");
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> Tls.server(context).withHandshakeTimeout(Duration.ZERO));
        Tls tls = Tls.server(context);
        assertThat(tls.clientAuth()).isEqualTo(Tls.ClientAuth.NONE);
        assertThat(tls.handshakeTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(tls.protocols()).isNull();
        assertThat(tls.withProtocols().protocols()).as("none is the context's defaults").isNull();
        assertThat(tls.withProtocols("TLSv1.3").protocols()).containsExactly("TLSv1.3");
        assertThat(tls.withCipherSuites((String[]) null).cipherSuites()).isNull();
        assertThat(tls.withClientAuth(Tls.ClientAuth.NEED).clientAuth()).isEqualTo(Tls.ClientAuth.NEED);
        assertThat(tls.withServerNames(Map.of("A.example", () -> context)).forServerName("a.EXAMPLE").context().get()).isSameAs(context);
        assertThat(tls.taskExecutor()).isNotNull();
        assertThat(ListenerSettings.tcp("plain").handler(new EchoHandler()).build().connection().tls()).isNull();
    }
}
