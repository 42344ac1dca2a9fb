package dev.sockstate.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.engine.SocketServer;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The plain Java program of the reference documentation's core page, on loopback and ephemeral ports. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PlainServerTest {

    @Test
    void echoesOverTcpAndAnswersDatagramsInUpperCase() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        SocketServer server = PlainServer.start(loopback, 0, 0);
        try {
            try (Socket client = new Socket(loopback, server.listener("echo").portNumber())) {
                client.setSoTimeout(5000);
                client.getOutputStream().write("hello".getBytes(StandardCharsets.UTF_8));
                assertThat(new String(client.getInputStream().readNBytes(5), StandardCharsets.UTF_8)).isEqualTo("hello");
            }
            try (DatagramSocket client = new DatagramSocket()) {
                client.setSoTimeout(5000);
                byte[] hello = "hello".getBytes(StandardCharsets.UTF_8);
                client.send(new DatagramPacket(hello, hello.length, new InetSocketAddress(loopback, server.listener("upper").portNumber())));
                DatagramPacket reply = new DatagramPacket(new byte[64], 64);
                client.receive(reply);
                assertThat(new String(reply.getData(), 0, reply.getLength(), StandardCharsets.UTF_8)).isEqualTo("HELLO");
            }
        }
        finally {
            server.stop(Duration.ofSeconds(5));
        }
        assertThat(server.isRunning()).isFalse();
    }
}
