package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.PeerAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Whom the counter answers (the addresses of other hosts cannot be sent from on loopback: the
 * method is called as the listener calls it; {@code SampleApplicationTests} has the real socket).
 */
class DatagramCounterTest {

    private static final PeerAddress OTHER_HOST = PeerAddress.of(new InetSocketAddress("192.0.2.7", 5353));

    private static @Nullable String text(@Nullable ByteBuffer answer) {
        return (answer != null) ? StandardCharsets.US_ASCII.decode(answer).toString() : null;
    }

    @Test
    void aSenderOnAnotherHostIsCountedAndNotAnsweredUnlessAsked() {
        DatagramCounter counter = new DatagramCounter(false);
        assertThat(text(counter.count(ByteBuffer.allocate(64), OTHER_HOST))).as("a source anyone may forge").isNull();
        assertThat(text(counter.count(ByteBuffer.allocate(1), PeerAddress.of(new InetSocketAddress("127.0.0.1", 5353))))).isEqualTo("2");
        assertThat(text(counter.count(ByteBuffer.allocate(1), PeerAddress.of(new InetSocketAddress("::1", 5353))))).isEqualTo("3");
        assertThat(counter.count()).isEqualTo(3);
    }

    @Test
    void answeringOtherHostsNeverSendsMoreBytesThanCame() {
        DatagramCounter counter = new DatagramCounter(true);
        for (int i = 1; i <= 9; i++) {
            assertThat(text(counter.count(ByteBuffer.allocate(1), OTHER_HOST))).isEqualTo(Integer.toString(i));
        }
        assertThat(text(counter.count(ByteBuffer.allocate(1), OTHER_HOST))).as("\"10\" for one byte").isNull();
        assertThat(text(counter.count(ByteBuffer.allocate(2), OTHER_HOST))).isEqualTo("11");
    }

    @Test
    void theAnswerHoldsEveryDigitOfTheCount() {
        DatagramCounter counter = new DatagramCounter(false);
        PeerAddress local = PeerAddress.of(new InetSocketAddress("127.0.0.1", 5353));
        String last = null;
        for (int i = 1; i <= 1234; i++) {
            last = text(counter.count(ByteBuffer.allocate(1), local));
        }
        assertThat(last).isEqualTo("1234");
    }
}
