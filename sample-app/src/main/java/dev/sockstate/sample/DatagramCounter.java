package dev.sockstate.sample;

import dev.sockstate.spring.handler.OnDatagram;
import dev.sockstate.spring.handler.SocketHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.beans.factory.annotation.Value;

/**
 * The reference's second scenario: an edge-triggered UDP receiver that drains its socket until it
 * would block, counts datagrams and answers each with its count. A UDP sender's address is not
 * proved (anyone may write another's), so that a counter answering every source would reflect
 * traffic at whoever the source names: it answers loopback senders only (what no other host can
 * send as), unless {@code sample.udp.answer-other-hosts} is set, and then never with more bytes
 * than came.
 */
@SocketHandler("udp")
public class DatagramCounter {

    private final AtomicLong datagrams = new AtomicLong();

    private final boolean answerOtherHosts;

    /** @param answerOtherHosts whether senders other than loopback ones are answered too (with no more bytes than they sent) */
    public DatagramCounter(@Value("${sample.udp.answer-other-hosts:false}") boolean answerOtherHosts) {
        this.answerOtherHosts = answerOtherHosts;
    }

    // tag::on-datagram[]
    /** @return the count, for the sender; {@code null} (counted, not answered) for a sender it may not answer */
    @OnDatagram
    byte[] count(byte[] datagram, InetSocketAddress sender) {
        byte[] count = Long.toString(this.datagrams.incrementAndGet()).getBytes(StandardCharsets.US_ASCII);
        if (sender.getAddress() != null && sender.getAddress().isLoopbackAddress()) {
            return count;
        }
        return (this.answerOtherHosts && count.length <= datagram.length) ? count : null;
    }
    // end::on-datagram[]

    /** @return datagrams received so far */
    public long count() {
        return this.datagrams.get();
    }
}
