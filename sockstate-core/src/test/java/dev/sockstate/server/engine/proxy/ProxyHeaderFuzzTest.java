package dev.sockstate.server.engine.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sockstate.server.proxy.ProxyProtocol;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The PROXY protocol reader, fuzzed (Jazzer): whatever a peer sends, and however the bytes arrive, the
 * reader reads a header, asks for more or refuses, naming why, and throws nothing. A refusal or a
 * header never depends on bytes after the ones it needed: every prefix of the input is answered with
 * "more" or the outcome of the whole, and "more" only while the input is shorter than the largest
 * header the listener takes. In the build it runs over its committed corpus
 * ({@code src/test/resources/.../ProxyHeaderFuzzTestInputs}); {@code benchmarks/fuzz.sh} fuzzes it.
 */
class ProxyHeaderFuzzTest {

    private static final InetSocketAddress BALANCER = new InetSocketAddress("127.0.0.1", 40000);

    private static final ProxyProtocol ANY = ProxyProtocol.accept(ProxyProtocol.Version.ANY)
            .withTrustedProxies(List.of("0.0.0.0/0", "::/0"));

    private static final ProxyProtocol V2_SMALL = ProxyProtocol.accept(ProxyProtocol.Version.V2).withMaxHeaderSize(256)
            .withTrustedProxies(List.of("0.0.0.0/0", "::/0"));

    @FuzzTest(maxDuration = "2m")
    void aHeaderIsReadOrRefusedWhateverTheBytesAndHowTheyArrive(byte[] input) {
        for (ProxyProtocol settings : List.of(ANY, V2_SMALL)) {
            ByteBuffer whole = ByteBuffer.wrap(input);
            HeaderReader.Result outcome = HeaderReader.read(whole, settings, BALANCER);
            int consumed = whole.position();
            if (outcome.header() != null) {
                assertThat(consumed).as("bytes a header took").isPositive().isLessThanOrEqualTo(input.length);
                assertThat(outcome.reason()).isNull();
            }
            else {
                assertThat(consumed).as("bytes taken without a header").isZero();
                if (outcome.reason() == null) {
                    assertThat(input.length).as("bytes held while asking for more").isLessThan(settings.maxHeaderSize());
                }
                else {
                    assertThat(outcome.problem()).as("what a refusal names").isNotBlank();
                }
            }
            for (int length = 0; length < input.length; length++) {
                ByteBuffer prefix = ByteBuffer.wrap(input, 0, length).slice();
                HeaderReader.Result early = HeaderReader.read(prefix, settings, BALANCER);
                if (early.header() == null && early.reason() == null) {
                    continue;
                }
                // Decided on a prefix: the whole input is decided the same way, on the same bytes.
                assertThat(early.reason()).as("the refusal of the first %d bytes", length).isEqualTo(outcome.reason());
                if (early.header() != null) {
                    assertThat(prefix.position()).as("bytes a header took of %d", length).isEqualTo(consumed);
                    assertThat(early.header()).isEqualTo(outcome.header());
                }
                break;
            }
        }
    }
}
