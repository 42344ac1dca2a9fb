package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * Whom the counter answers (the addresses of other hosts cannot be sent from on loopback: the
 * method is called as the listener calls it; {@code SampleApplicationTests} has the real socket).
 */
class DatagramCounterTest {

    private static final InetSocketAddress OTHER_HOST = new InetSocketAddress("192.0.2.7", 5353);

    @Test
    void aSenderOnAnotherHostIsCountedAndNotAnsweredUnlessAsked() {
        DatagramCounter counter = new DatagramCounter(false);
        assertThat(counter.count(new byte[64], OTHER_HOST)).as("a source anyone may forge").isNull();
        assertThat(counter.count(new byte[1], new InetSocketAddress("127.0.0.1", 5353))).asString().isEqualTo("2");
        assertThat(counter.count(new byte[1], new InetSocketAddress("::1", 5353))).asString().isEqualTo("3");
        assertThat(counter.count()).isEqualTo(3);
    }

    @Test
    void answeringOtherHostsNeverSendsMoreBytesThanCame() {
        DatagramCounter counter = new DatagramCounter(true);
        for (int i = 1; i <= 9; i++) {
            assertThat(counter.count(new byte[1], OTHER_HOST)).asString().isEqualTo(Integer.toString(i));
        }
        assertThat(counter.count(new byte[1], OTHER_HOST)).as("\"10\" for one byte").isNull();
        assertThat(counter.count(new byte[2], OTHER_HOST)).asString().isEqualTo("11");
    }
}
