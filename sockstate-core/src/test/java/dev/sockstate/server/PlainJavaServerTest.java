package dev.sockstate.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.server.engine.SocketServer;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The core as a plain Java program uses it, with no Spring on the class path: the core page's example,
 * a TCP and a UDP listener started, served and stopped, through the public API only.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PlainJavaServerTest {

    @Test
    void springIsNotOnTheCoreClassPath() {
        assertThatExceptionOfType(ClassNotFoundException.class)
                .isThrownBy(() -> Class.forName("org.springframework.core.SpringVersion"));
        assertThatExceptionOfType(ClassNotFoundException.class)
                .isThrownBy(() -> Class.forName("org.springframework.boot.SpringApplication"));
    }

    @Test
    void aSocketServerServesTcpAndUdpAndStopsAsAPlainJavaProgramRunsIt() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        // The core page's program (docs/core.md), with loopback and ephemeral port numbers for a test.
        SocketServer server = dev.sockstate.docs.PlainServer.start(loopback, 0, 0);
        List<Thread> workers = Thread.getAllStackTraces().keySet().stream()
                .filter((thread) -> thread.getName().startsWith("sockstate-default-")).toList();
        try {
            assertThat(server.isRunning()).isTrue();
            try (Socket client = new Socket(loopback, server.listener("echo").portNumber())) {
                client.setSoTimeout(5000);
                client.getOutputStream().write("plain java".getBytes(StandardCharsets.UTF_8));
                assertThat(new String(client.getInputStream().readNBytes(10), StandardCharsets.UTF_8)).isEqualTo("plain java");
            }
            try (DatagramSocket client = new DatagramSocket()) {
                client.setSoTimeout(5000);
                byte[] hello = "hello".getBytes(StandardCharsets.UTF_8);
                client.send(new DatagramPacket(hello, hello.length,
                        new InetSocketAddress(loopback, server.listener("upper").portNumber())));
                DatagramPacket reply = new DatagramPacket(new byte[64], 64);
                client.receive(reply);
                assertThat(new String(reply.getData(), 0, reply.getLength(), StandardCharsets.UTF_8)).isEqualTo("HELLO");
            }
        }
        finally {
            server.stop(Duration.ofSeconds(5));
        }
        assertThat(server.isRunning()).isFalse();
        assertThat(server.listeners()).isEmpty();
        assertThat(workers).hasSize(2).noneMatch(Thread::isAlive);
    }
}
