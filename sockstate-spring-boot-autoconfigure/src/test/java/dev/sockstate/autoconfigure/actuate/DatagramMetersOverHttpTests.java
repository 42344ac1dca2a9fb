package dev.sockstate.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.spring.handler.OnDatagram;
import dev.sockstate.spring.handler.SocketHandler;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;

/**
 * A UDP listener's datagrams as an operator sees them over real HTTP: a burst queued behind a busy
 * handler, received in batches of the listener's {@code receive-batch} on epoll, the datagrams its
 * 4 KB receive buffer could not hold counted as overflowed in Prometheus' scrape (on epoll, which
 * reports them), the datagrams received and answered counted, and the listener's
 * {@code max-datagram-size} truncating a longer one.
 */
@SpringBootTest(classes = DatagramMetersOverHttpTests.DatagramApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "sockstate.listeners.udp.address=127.0.0.1", "sockstate.listeners.udp.port=0", "sockstate.listeners.udp.protocol=udp",
                "sockstate.listeners.udp.receive-buffer-size=4KB", "sockstate.listeners.udp.receive-batch=8",
                "sockstate.listeners.udp.max-datagram-size=32B", "sockstate.workers.threads=1",
                "management.endpoints.web.exposure.include=prometheus" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@DirtiesContext
class DatagramMetersOverHttpTests {

    private static final int BURST = 300;

    @LocalServerPort
    private int httpPort;

    @Autowired
    private Environment environment;

    @Autowired
    private SocketServer server;

    @Test
    void aBurstIsCountedAsReceivedInBatchesAnsweredAndOverflowedWhereTheSystemReportsIt() throws Exception {
        int port = this.environment.getProperty("local.sockstate.udp.port", Integer.class);
        InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        DatagramApplication.Reflector.release = new CountDownLatch(1);
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            client.setSoTimeout(5000);
            send(client, target, "hold the worker: a datagram longer than 32 bytes");
            long held = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (DatagramApplication.Reflector.handled.get() == 0 && System.nanoTime() < held) {
                Thread.sleep(1);
            }
            assertThat(DatagramApplication.Reflector.handled.get()).as("the worker held in the first datagram's handler").isOne();
            for (int i = 0; i < BURST; i++) {
                send(client, target, "burst " + i);
            }
            DatagramApplication.Reflector.release.countDown();
            DatagramPacket reply = new DatagramPacket(new byte[128], 128);
            client.receive(reply);
            assertThat(new String(reply.getData(), 0, reply.getLength(), StandardCharsets.UTF_8)).as("the reply, truncated to the room")
                    .isEqualTo("hold the worker: a datagram long");
            // The overflow count rides on the datagrams queued after a drop: the last, sent once the burst drained, carries it.
            int before;
            do {
                before = DatagramApplication.Reflector.handled.get();
                Thread.sleep(200);
            }
            while (DatagramApplication.Reflector.handled.get() != before);
            send(client, target, "last");
            assertThat(DatagramApplication.Reflector.last.await(10, TimeUnit.SECONDS)).as("the last datagram handled").isTrue();
            int received = DatagramApplication.Reflector.handled.get();
            assertThat(received).as("datagrams a 4 KB buffer held of %d sent", BURST + 2).isBetween(3, BURST + 1);
            // The answers to a batch are counted once they left, just after its last handler call returned.
            Http http = new Http(this.httpPort);
            String scrape = http.get("/actuator/prometheus").body();
            for (int i = 0; i < 50 && value(scrape, "sockstate_datagrams_sent_datagrams_total") < received; i++) {
                Thread.sleep(100);
                scrape = http.get("/actuator/prometheus").body();
            }
            assertThat(value(scrape, "sockstate_datagrams_received_datagrams_total")).isEqualTo(received);
            assertThat(value(scrape, "sockstate_datagrams_sent_datagrams_total")).as("answers").isEqualTo(received);
            double calls = value(scrape, "sockstate_datagrams_batch_datagrams_total");
            assertThat(value(scrape, "sockstate_datagrams_batch_datagrams_sum_total")).isEqualTo(received);
            double overflowed = value(scrape, "sockstate_datagrams_overflowed_datagrams_total");
            if (this.server.backendName().equals("epoll")) {
                assertThat(calls).as("receive calls for %d datagrams", received).isLessThan(received / 2.0);
                assertThat(overflowed).as("dropped of %d sent", BURST + 2).isEqualTo(BURST + 2 - received);
            }
            else {
                assertThat(calls).isEqualTo(received);
                assertThat(overflowed).isZero();
            }
        }
    }

    private static void send(DatagramSocket client, InetSocketAddress target, String text) throws Exception {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        client.send(new DatagramPacket(payload, payload.length, target));
    }

    private static double value(String scrape, String series) {
        Matcher matcher = Pattern.compile("(?m)^" + series + "\\{[^}]*listener=\"udp\"[^}]*} ([0-9.eE+]+)$").matcher(scrape);
        assertThat(matcher.find()).as("the series %s in the scrape's datagram series: %s", series,
                scrape.lines().filter((line) -> line.startsWith("sockstate_datagrams")).toList()).isTrue();
        return Double.parseDouble(matcher.group(1));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class DatagramApplication {

        /** Answers each datagram with itself; the first waits for the test's word, holding the worker while a burst queues. */
        @SocketHandler("udp")
        static class Reflector {

            static final AtomicInteger handled = new AtomicInteger();

            static volatile CountDownLatch release = new CountDownLatch(0);

            static final CountDownLatch last = new CountDownLatch(1);

            @OnDatagram
            byte[] reflect(byte[] datagram) throws InterruptedException {
                if (handled.incrementAndGet() == 1) {
                    release.await(10, TimeUnit.SECONDS);
                }
                if (new String(datagram, StandardCharsets.UTF_8).equals("last")) {
                    last.countDown();
                }
                return datagram;
            }
        }
    }
}
