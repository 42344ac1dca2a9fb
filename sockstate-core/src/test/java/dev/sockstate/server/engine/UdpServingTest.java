package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Trigger;
import dev.sockstate.server.DatagramEndpoint;
import dev.sockstate.server.DatagramHandler;
import dev.sockstate.server.WorkerGroupSettings;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** UDP listeners: round trips with replies to the sender, level one-shot and edge persistent. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UdpServingTest {

    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    @Test
    void datagramsAreAnsweredToTheirSenderOnASharedGroup() throws Exception {
        SocketServer server = this.fixture.start(2, ServerFixture.udp("udp").handler(UdpServingTest::reflect).build());
        roundTrips(server, 200);
    }

    @Test
    void anEdgeTriggeredReceiverOnItsOwnSingleWorkerGroupDrainsAndCounts() throws Exception {
        AtomicInteger count = new AtomicInteger();
        DatagramHandler counting = (endpoint, data, sender) -> {
            int n = count.incrementAndGet();
            endpoint.send(ByteBuffer.wrap(Integer.toString(n).getBytes(StandardCharsets.UTF_8)), sender);
        };
        SocketServer server = this.fixture.start(List.of(WorkerGroupSettings.of("default", 2), WorkerGroupSettings.of("udp", 1)),
                ServerFixture.udp("udp").trigger(Trigger.EDGE_PERSISTENT).group("udp").handler(counting).build());
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            client.setSoTimeout(5000);
            InetSocketAddress target = (InetSocketAddress) server.listener("udp").address();
            int datagrams = 50;
            for (int i = 0; i < datagrams; i++) {
                client.send(new DatagramPacket(new byte[] { 1 }, 1, target));
            }
            int highest = 0;
            for (int i = 0; i < datagrams; i++) {
                DatagramPacket reply = new DatagramPacket(new byte[16], 16);
                client.receive(reply);
                highest = Math.max(highest, Integer.parseInt(new String(reply.getData(), 0, reply.getLength(), StandardCharsets.UTF_8)));
            }
            assertThat(highest).isEqualTo(datagrams);
        }
    }

    static void reflect(DatagramEndpoint endpoint, ByteBuffer data, dev.sockstate.port.PeerAddress sender) {
        endpoint.send(data, sender);
    }

    private void roundTrips(SocketServer server, int count) throws Exception {
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            client.setSoTimeout(5000);
            InetSocketAddress target = (InetSocketAddress) server.listener("udp").address();
            for (int i = 0; i < count; i++) {
                byte[] payload = ("datagram " + i).getBytes(StandardCharsets.UTF_8);
                client.send(new DatagramPacket(payload, payload.length, target));
                DatagramPacket reply = new DatagramPacket(new byte[64], 64);
                client.receive(reply);
                assertThat(new String(reply.getData(), 0, reply.getLength(), StandardCharsets.UTF_8)).isEqualTo("datagram " + i);
            }
        }
    }
}
