package dev.sockstate.server.engine.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.engine.proxy.HeaderReader.Result;
import dev.sockstate.server.proxy.ProxyHeader;
import dev.sockstate.server.proxy.ProxyHeader.Command;
import dev.sockstate.server.proxy.ProxyHeader.Transport;
import dev.sockstate.server.proxy.ProxyProtocol;
import dev.sockstate.server.proxy.ProxyProtocol.Version;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The header reader on the headers balancers send and on hostile ones: what it reads, what it waits
 * for, and what it refuses, by reason.
 */
class HeaderReaderTest {

    private static final InetSocketAddress PROXY = new InetSocketAddress("127.0.0.3", 40000);

    private static final InetSocketAddress CLIENT = new InetSocketAddress("192.0.2.7", 51000);

    private static final InetSocketAddress SERVER = new InetSocketAddress("198.51.100.1", 443);

    private static final ProxyProtocol ANY = ProxyProtocol.accept(Version.ANY);

    @Test
    void aVersion1HeaderNamesTheClientAndLeavesTheBytesAfterIt() {
        ByteBuffer data = join(ProxyHeaders.v1(CLIENT, SERVER), "GET".getBytes(StandardCharsets.US_ASCII));
        ProxyHeader header = read(data, ANY).header();
        assertThat(header.version()).isEqualTo(1);
        assertThat(header.command()).isEqualTo(Command.PROXY);
        assertThat(header.transport()).isEqualTo(Transport.TCP4);
        assertThat(header.source()).isEqualTo(CLIENT);
        assertThat(header.destination()).isEqualTo(SERVER);
        assertThat(header.proxyAddress()).isEqualTo(PROXY);
        assertThat(header.relaysClient()).isTrue();
        assertThat(StandardCharsets.US_ASCII.decode(data).toString()).isEqualTo("GET");
    }

    @Test
    void aVersion1HeaderOverIpv6IsRead() {
        InetSocketAddress client = new InetSocketAddress("2001:db8::7", 51000);
        InetSocketAddress server = new InetSocketAddress("2001:db8::1", 443);
        ProxyHeader header = read(ByteBuffer.wrap(ProxyHeaders.v1(client, server)), ANY).header();
        assertThat(header.transport()).isEqualTo(Transport.TCP6);
        assertThat(header.source()).isEqualTo(client);
    }

    @Test
    void aVersion1UnknownHeaderKeepsTheProxyAsThePeer() {
        ProxyHeader header = read(ascii("PROXY UNKNOWN whatever follows\r\n"), ANY).header();
        assertThat(header.transport()).isEqualTo(Transport.UNKNOWN);
        assertThat(header.source()).isNull();
        assertThat(header.relaysClient()).isFalse();
    }

    @Test
    void anIncompleteHeaderWaitsForMoreBytesWithoutMovingThePosition() {
        byte[] v1 = ProxyHeaders.v1(CLIENT, SERVER);
        byte[] v2 = ProxyHeaders.v2().tcp(CLIENT, SERVER).bytes();
        for (byte[] whole : new byte[][] { v1, v2 }) {
            for (int length = 1; length < whole.length; length++) {
                ByteBuffer part = ByteBuffer.wrap(whole, 0, length);
                assertThat(read(part, ANY).needsMore()).as("%d of %d bytes", length, whole.length).isTrue();
                assertThat(part.position()).isZero();
            }
        }
    }

    @Test
    void version1HeadersThatTheProtocolDoesNotAllowAreRefusedAsMalformed() {
        String[] bad = { "PROXY TCP4 192.0.2.7 198.51.100.1 51000\r\n", "PROXY TCP5 192.0.2.7 198.51.100.1 51000 443\r\n",
            "PROXY TCP4 192.0.2.256 198.51.100.1 51000 443\r\n", "PROXY TCP4 example.com 198.51.100.1 51000 443\r\n",
            "PROXY TCP4 192.0.2.7 198.51.100.1 051000 443\r\n", "PROXY TCP4 192.0.2.7 198.51.100.1 65536 443\r\n",
            "PROXY TCP4 2001:db8::7 198.51.100.1 51000 443\r\n", "PROXY TCP6 192.0.2.7 198.51.100.1 51000 443\r\n",
            "PROXY TCP4 192.0.2.7  198.51.100.1 51000 443\r\n", "PROXY TCP4 192.0.2.7 198.51.100.1 51000 443\n",
            "PROXY TCP4 192.0.2.7\t198.51.100.1 51000 443\r\n", "PROXX TCP4", "HELLO",
            "PROXY TCP4 192.0.2.7\r198.51.100.1 51000 443\r\n", "PROXY TCP4 192.0.2.7 198.51.100.1 51000 443\r\r\n",
            "PROXY UNKNOWN\rforged log line\r\n", "PROXY TCP6 .:1 ::1 51000 443\r\n", "PROXY TCP4 192.0.2.7 198.51.100.1\u007f 51000 443\r\n",
            "PROXY TCP4 192.0.2.7\u0000 198.51.100.1 51000 443\r\n", "PROXY UNKNOWN\u0000\r\n", "PROXY\u0000TCP4\r\n" };
        for (String header : bad) {
            Result result = read(ascii(header), ANY);
            assertThat(result.reason()).as(header).isEqualTo("malformed");
            // What is logged of the peer's bytes holds no control character (a CR would start a forged line).
            assertThat(result.problem()).as(header).isNotBlank().doesNotContainPattern("[\\x00-\\x1f\\x7f]");
        }
    }

    @Test
    void version1AddressesAreReadAsTheJdkReadsLiteralsWithoutItsResolver() throws Exception {
        for (String literal : List.of("::", "::1", "1::", "2001:db8::7", "2001:DB8:0:0:8:800:200C:417A", "fe80::1:2:3:4:5:6",
                "1:2:3:4:5:6:7::", "::1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8", "::ffff:192.0.2.7", "::192.0.2.7", "64:ff9b::198.51.100.1",
                "1:2:3:4:5:6:1.2.3.4", "0:0:0:0:0:0:0:1")) {
            assertThat(V1Reader.address(literal, Transport.TCP6)).as(literal).isEqualTo(InetAddress.getByName(literal));
        }
        for (String text : List.of(":", ":::", "1:::2", "1::2::3", ":1::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "12345::", "g::1",
                "::1%eth0", "::1%1", ".:1", "1.2.3.4", "::1.2.3", "::1.2.3.4.5", "1.2.3.4::", "::01.2.3.4", "1:2:3:4:5:6:7:1.2.3.4",
                "1:2:3:4:5:6:7:8::", "::ffff:256.1.1.1", "localhost", " ::1", "::1 ", "")) {
            assertThat(V1Reader.address(text, Transport.TCP6)).as("'%s'", text).isNull();
        }
        assertThat(V1Reader.address("192.0.2.7", Transport.TCP4)).isEqualTo(InetAddress.getByName("192.0.2.7"));
        for (String text : List.of("192.0.2", "192.0.2.07", "192.0.2.256", "::1", "1.2.3.4.5", "0x1.2.3.4")) {
            assertThat(V1Reader.address(text, Transport.TCP4)).as("'%s'", text).isNull();
        }
    }

    @Test
    void theLongestVersion1HeadersAreRead() {
        String client = "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe";
        String server = "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff";
        ByteBuffer tcp6 = ascii("PROXY TCP6 " + client + " " + server + " 65535 65535\r\nx");
        assertThat(read(tcp6, ANY).header().source()).isEqualTo(new InetSocketAddress(client, 65535));
        assertThat(tcp6.remaining()).isOne();
        ByteBuffer unknown = ascii("PROXY UNKNOWN " + client + " " + server + " 65535 65535\r\nx");
        assertThat(unknown.remaining()).isEqualTo(ProxyProtocol.V1_MAX_HEADER_SIZE + 1);
        assertThat(read(unknown, ANY).header().transport()).isEqualTo(Transport.UNKNOWN);
        assertThat(unknown.remaining()).isOne();
    }

    @Test
    void aVersion1LineWithoutItsEndWithinTheProtocols107BytesIsOversized() {
        ByteBuffer line = ascii("PROXY TCP4 " + "1".repeat(96));
        assertThat(line.remaining()).isEqualTo(ProxyProtocol.V1_MAX_HEADER_SIZE);
        assertThat(read(line, ANY).reason()).isEqualTo("oversized");
    }

    @Test
    void aVersion2HeaderWithTlvsAndAChecksumIsRead() {
        byte[] bytes = ProxyHeaders.v2().tcp(CLIENT, SERVER).tlv(ProxyHeader.PP2_TYPE_AUTHORITY, "db.example".getBytes(StandardCharsets.UTF_8))
                .tlv(ProxyHeader.PP2_TYPE_NOOP, new byte[3]).tlv(0xE0, new byte[] { 1, 2 }).crc32c().bytes();
        ByteBuffer data = join(bytes, new byte[] { 42 });
        ProxyHeader header = read(data, ANY).header();
        assertThat(header.version()).isEqualTo(2);
        assertThat(header.source()).isEqualTo(CLIENT);
        assertThat(header.destination()).isEqualTo(SERVER);
        assertThat(header.authority()).isEqualTo("db.example");
        assertThat(header.tlv(0xE0)).containsExactly(1, 2);
        assertThat(header.tlv(ProxyHeader.PP2_TYPE_NOOP)).as("padding is dropped").isNull();
        assertThat(header.tlv(ProxyHeader.PP2_TYPE_CRC32C)).hasSize(4);
        assertThat(data.remaining()).isEqualTo(1);
        assertThat(data.get()).isEqualTo((byte) 42);
    }

    @Test
    void aVersion2HeaderOverIpv6AndOneOfUnixSocketsAreRead() {
        InetSocketAddress client = new InetSocketAddress("2001:db8::7", 51000);
        InetSocketAddress server = new InetSocketAddress("2001:db8::1", 443);
        assertThat(read(ByteBuffer.wrap(ProxyHeaders.v2().tcp(client, server).bytes()), ANY).header().source()).isEqualTo(client);
        byte[] paths = new byte[216];
        System.arraycopy("/run/a.sock".getBytes(StandardCharsets.UTF_8), 0, paths, 0, 11);
        System.arraycopy("/run/b.sock".getBytes(StandardCharsets.UTF_8), 0, paths, 108, 11);
        ProxyHeader header = read(ByteBuffer.wrap(ProxyHeaders.v2().familyTransport(0x31).addressBytes(paths).bytes()), ANY).header();
        assertThat(header.transport()).isEqualTo(Transport.UNIX_STREAM);
        assertThat(header.source()).isEqualTo(UnixDomainSocketAddress.of("/run/a.sock"));
        assertThat(header.relaysClient()).as("a relayed Unix client is the peer too").isTrue();
    }

    @Test
    void aVersion2LocalHeaderIsTakenWhateverFollowsItsFixedPart() {
        for (byte[] local : new byte[][] { ProxyHeaders.v2().local().familyTransport(0x41).addressBytes(new byte[5]).bytes(),
            ProxyHeaders.v2().local().familyTransport(0x11).addressBytes(new byte[3]).bytes() }) {
            ByteBuffer data = ByteBuffer.wrap(local);
            assertThat(read(data, ANY).header().command()).isEqualTo(Command.LOCAL);
            assertThat(data.hasRemaining()).isFalse();
        }
    }

    @Test
    void aVersion2LocalHeaderSkipsItsAddresses() {
        ProxyHeader header = read(ByteBuffer.wrap(ProxyHeaders.v2().local().tcp(CLIENT, SERVER).bytes()), ANY).header();
        assertThat(header.command()).isEqualTo(Command.LOCAL);
        assertThat(header.source()).isNull();
        assertThat(header.relaysClient()).isFalse();
    }

    @Test
    void version2HeadersThatTheProtocolDoesNotAllowAreRefusedAsMalformed() {
        byte[][] bad = { ProxyHeaders.v2().versionCommand(0x11).tcp(CLIENT, SERVER).bytes(),
            ProxyHeaders.v2().versionCommand(0x22).tcp(CLIENT, SERVER).bytes(),
            ProxyHeaders.v2().tcp(CLIENT, SERVER).familyTransport(0x41).bytes(),
            ProxyHeaders.v2().tcp(CLIENT, SERVER).familyTransport(0x21).bytes(),
            ProxyHeaders.v2().tcp(CLIENT, SERVER).rawTlvBytes(new byte[] { 0x02, 0x00 }).bytes(),
            ProxyHeaders.v2().tcp(CLIENT, SERVER).rawTlvBytes(new byte[] { 0x02, 0x00, 0x09, 'a' }).bytes(),
            corruptChecksum(ProxyHeaders.v2().tcp(CLIENT, SERVER).crc32c().bytes()),
            ProxyHeaders.v2().tcp(CLIENT, SERVER).tlv(ProxyHeader.PP2_TYPE_CRC32C, new byte[2]).bytes() };
        for (byte[] header : bad) {
            Result result = read(ByteBuffer.wrap(header), ANY);
            assertThat(result.reason()).as(Arrays.toString(header)).isEqualTo("malformed");
        }
    }

    /**
     * What made a PROXY decoder exhaust its stack (Netty's CVE-2022-41881): SSL TLVs nested in one
     * another as deep as a 64 KiB header holds, some 7,500 levels. The TLVs are read as one flat list, the
     * SSL TLV's value kept as bytes and never parsed into its sub-TLVs, so depth costs nothing.
     */
    @Test
    void sslTlvsNestedAsDeepAsTheLongestHeaderHoldsAreReadFlatWithoutRecursion() {
        int depth = 8000;
        byte[] nested = new byte[0];
        for (int level = 0; level < depth; level++) {
            ByteBuffer outer = ByteBuffer.allocate(8 + nested.length);
            // client and verify (5 bytes), then the sub-TLV: an SSL TLV again.
            outer.put((byte) 0x01).putInt(0);
            outer.put((byte) ProxyHeader.PP2_TYPE_SSL).putShort((short) (nested.length)).put(nested);
            nested = Arrays.copyOf(outer.array(), outer.position());
            if (nested.length > 60_000) {
                break;
            }
        }
        byte[] deepest = nested;
        byte[] header = ProxyHeaders.v2().tcp(CLIENT, SERVER).tlv(ProxyHeader.PP2_TYPE_SSL, deepest).bytes();
        Result result = read(ByteBuffer.wrap(header), ANY.withMaxHeaderSize(65551));
        assertThat(result.header()).as(String.valueOf(result.problem())).isNotNull();
        assertThat(result.header().tlvs()).singleElement().satisfies((tlv) -> {
            assertThat(tlv.type()).isEqualTo(ProxyHeader.PP2_TYPE_SSL);
            assertThat(tlv.value()).isEqualTo(deepest);
        });
    }

    @Test
    void aVersion2HeaderDeclaringMoreThanTheLimitIsRefusedFromItsFixedPartAlone() {
        ByteBuffer fixed = ByteBuffer.wrap(ProxyHeaders.v2().tcp(CLIENT, SERVER).declaredLength(60000).bytes(), 0, 16);
        Result result = read(fixed, ANY);
        assertThat(result.reason()).isEqualTo("oversized");
        assertThat(result.problem()).contains("60016").contains("4096");
        assertThat(read(fixed.rewind(), ANY.withMaxHeaderSize(65551)).needsMore()).isTrue();
    }

    @Test
    void aVersionTheListenerDoesNotAcceptIsRefusedAsSuch() {
        assertThat(read(ByteBuffer.wrap(ProxyHeaders.v1(CLIENT, SERVER)), ProxyProtocol.accept(Version.V2)).reason()).isEqualTo("version");
        assertThat(read(ByteBuffer.wrap(ProxyHeaders.v2().tcp(CLIENT, SERVER).bytes()), ProxyProtocol.accept(Version.V1)).reason())
                .isEqualTo("version");
        assertThat(read(ByteBuffer.wrap(ProxyHeaders.v1(CLIENT, SERVER)), ProxyProtocol.accept(Version.V1)).header()).isNotNull();
    }

    private static byte[] corruptChecksum(byte[] header) {
        header[header.length - 1] ^= 1;
        return header;
    }

    @Test
    void aBufferInLittleEndianOrderReadsAsWell() {
        byte[] bytes = ProxyHeaders.v2().tcp(CLIENT, SERVER).tlv(ProxyHeader.PP2_TYPE_AUTHORITY, new byte[] { 'a' }).crc32c().bytes();
        ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length + 8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        direct.position(8);
        direct.put(bytes).flip().position(8);
        assertThat(read(direct, ANY).header().authority()).isEqualTo("a");
        assertThat(direct.hasRemaining()).isFalse();
    }

    private static Result read(ByteBuffer data, ProxyProtocol settings) {
        return HeaderReader.read(data, settings, PROXY);
    }

    private static ByteBuffer ascii(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    private static ByteBuffer join(byte[] first, byte[] second) {
        ByteBuffer joined = ByteBuffer.allocate(first.length + second.length);
        return joined.put(first).put(second).flip();
    }
}
