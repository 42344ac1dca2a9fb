package dev.sockstate.sample;

import dev.sockstate.port.PeerAddress;
import dev.sockstate.spring.handler.OnDatagram;
import dev.sockstate.spring.handler.SocketHandler;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;

/**
 * The reference's second scenario: an edge-triggered UDP receiver that drains its socket until it
 * would block, counts datagrams and answers each with its count. A UDP sender's address is not
 * proved (anyone may write another's), so that a counter answering every source would reflect
 * traffic at whoever the source names: it answers loopback senders only (what no other host can
 * send as), unless {@code sample.udp.answer-other-hosts} is set, and then never with more bytes
 * than came. It takes the datagram and the sender as the listener lends them and writes its answer
 * into a buffer of the calling thread's: nothing is allocated a datagram, so a collector's rate
 * brings no garbage collection.
 */
@SocketHandler("udp")
public class DatagramCounter {

    /** The most digits a count takes. */
    private static final int DIGITS = 19;

    private final AtomicLong datagrams = new AtomicLong();

    private final boolean answerOtherHosts;

    /** The answer's room, one for each thread that answers (the listener's worker): the listener copies what it sends. */
    private final ThreadLocal<ByteBuffer> answers = ThreadLocal.withInitial(() -> ByteBuffer.allocate(DIGITS));

    /** @param answerOtherHosts whether senders other than loopback ones are answered too (with no more bytes than they sent) */
    public DatagramCounter(@Value("${sample.udp.answer-other-hosts:false}") boolean answerOtherHosts) {
        this.answerOtherHosts = answerOtherHosts;
    }

    // tag::on-datagram[]
    /** @return the count in ASCII digits, for the sender; {@code null} (counted, not answered) for a sender it may not answer */
    @OnDatagram
    @Nullable ByteBuffer count(ByteBuffer datagram, PeerAddress sender) {
        ByteBuffer count = digits(this.datagrams.incrementAndGet(), this.answers.get());
        if (sender.isLoopback()) {
            return count;
        }
        return (this.answerOtherHosts && count.remaining() <= datagram.remaining()) ? count : null;
    }
    // end::on-datagram[]

    /** @return the buffer, holding the number's decimal digits from its position to its limit */
    private static ByteBuffer digits(long number, ByteBuffer buffer) {
        int at = DIGITS;
        long rest = number;
        do {
            buffer.put(--at, (byte) ('0' + (int) (rest % 10)));
            rest /= 10;
        }
        while (rest != 0);
        return buffer.limit(DIGITS).position(at);
    }

    /** @return datagrams received so far */
    public long count() {
        return this.datagrams.get();
    }
}
