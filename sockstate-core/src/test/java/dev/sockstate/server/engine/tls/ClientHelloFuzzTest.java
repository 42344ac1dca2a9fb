package dev.sockstate.server.engine.tls;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;

/**
 * The reader of a peer's first TLS records (the ClientHello, reassembled over records, and the server
 * name it asks for), fuzzed (Jazzer): whatever the bytes, it answers "incomplete", "no ClientHello"
 * or the message, never throws, and never moves the caller's position (what a connection holds
 * meanwhile is the TLS stage's bound); a prefix of the input is never answered with a message the whole does not give. In the
 * build it runs over its committed corpus; {@code benchmarks/fuzz.sh} fuzzes it.
 */
class ClientHelloFuzzTest {

    @FuzzTest(maxDuration = "2m")
    void aClientHelloIsFoundOrNotWhateverTheRecordsHold(byte[] input) {
        ByteBuffer records = ByteBuffer.wrap(input);
        ByteBuffer hello = TlsRecords.clientHello(records);
        assertThat(records.position()).as("the caller's position").isZero();
        if (hello != null && hello != TlsRecords.INCOMPLETE) {
            assertThat(hello.remaining()).as("a ClientHello's bytes").isBetween(4, TlsRecords.MOST_HELLO);
            assertThat(hello.get(hello.position())).as("its handshake type").isEqualTo((byte) 1);
            int before = hello.position();
            String name = TlsRecords.serverName(hello);
            assertThat(hello.position()).isEqualTo(before);
            if (name != null) {
                assertThat(name).isNotEmpty();
                assertThat(name.length()).isLessThan(1 << 16);
            }
        }
        for (int length = 0; length < input.length; length++) {
            ByteBuffer early = TlsRecords.clientHello(ByteBuffer.wrap(input, 0, length).slice());
            if (early == null) {
                assertThat(hello).as("no ClientHello in the first %d bytes, so none in them all", length).isNull();
                break;
            }
            if (early != TlsRecords.INCOMPLETE) {
                assertThat(early).as("the ClientHello of the first %d bytes", length).isEqualTo(hello);
                break;
            }
        }
        // Any bytes as a whole ClientHello: the server name reader stays within them.
        TlsRecords.serverName(ByteBuffer.wrap(input));
    }
}
