package dev.sockstate.sample;

import dev.sockstate.spring.handler.OnDatagram;
import dev.sockstate.spring.handler.SocketHandler;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The reference's second scenario: an edge-triggered UDP receiver that drains its socket until it
 * would block, counts datagrams and answers each with its count.
 */
@SocketHandler("udp")
public class DatagramCounter {

    private final AtomicLong datagrams = new AtomicLong();

    @OnDatagram
    String count(byte[] datagram) {
        return Long.toString(this.datagrams.incrementAndGet());
    }

    /** @return datagrams received so far */
    public long count() {
        return this.datagrams.get();
    }
}
