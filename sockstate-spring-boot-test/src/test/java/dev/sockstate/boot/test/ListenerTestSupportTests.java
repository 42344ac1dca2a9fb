package dev.sockstate.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.spring.handler.OnDatagram;
import dev.sockstate.spring.handler.SocketHandler;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A plain {@code @SpringBootTest} (no annotation of sockstate's) whose configuration names ports
 * already taken, as by the application running beside it: the listeners bind free ports instead,
 * and {@link LocalListenerPort} reads them by name.
 */
@SpringBootTest(classes = { EchoApplication.class, ListenerTestSupportTests.Pings.class },
        properties = { "sockstate.workers.threads=1", "sockstate.listeners.echo.address=127.0.0.1",
                "sockstate.listeners.udp-pings.address=127.0.0.1", "sockstate.listeners.udp-pings.protocol=udp" })
class ListenerTestSupportTests {

    private static final ServerSocket TAKEN = taken();

    private static final DatagramSocket TAKEN_UDP = takenUdp();

    @LocalListenerPort("echo")
    private int echoPort;

    @LocalListenerPort("udp-pings")
    private String pingsPort;

    @DynamicPropertySource
    static void configuredOnTakenPorts(DynamicPropertyRegistry registry) {
        registry.add("sockstate.listeners.echo.port", TAKEN::getLocalPort);
        registry.add("sockstate.listeners.udp-pings.port", TAKEN_UDP::getLocalPort);
    }

    @AfterAll
    static void release() throws IOException {
        TAKEN.close();
        TAKEN_UDP.close();
    }

    @Test
    void everyListenerServesOnAFreePortInjectedByItsName() throws IOException {
        assertThat(this.echoPort).isPositive().isNotEqualTo(TAKEN.getLocalPort());
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), this.echoPort)) {
            client.setSoTimeout(5000);
            client.getOutputStream().write(new byte[] { 1, 2, 3 });
            assertThat(client.getInputStream().readNBytes(3)).containsExactly(1, 2, 3);
        }
        int pings = Integer.parseInt(this.pingsPort);
        assertThat(pings).isNotEqualTo(TAKEN_UDP.getLocalPort());
        try (DatagramSocket client = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            client.setSoTimeout(5000);
            client.send(new DatagramPacket(new byte[] { 7 }, 1, InetAddress.getLoopbackAddress(), pings));
            DatagramPacket reply = new DatagramPacket(new byte[8], 8);
            client.receive(reply);
            assertThat(reply.getLength()).isEqualTo(1);
        }
    }

    @Autowired
    private Environment environment;

    @Test
    @DirtiesContext(methodMode = DirtiesContext.MethodMode.BEFORE_METHOD)
    void inAContextStartedAfreshForTheMethodThePortsAreTheNewListeners() throws IOException {
        assertThat(this.echoPort).isEqualTo(this.environment.getProperty("local.sockstate.echo.port", Integer.class));
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), this.echoPort)) {
            client.setSoTimeout(5000);
            client.getOutputStream().write(new byte[] { 4 });
            assertThat(client.getInputStream().read()).isEqualTo(4);
        }
    }

    private static ServerSocket taken() {
        try {
            return new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static DatagramSocket takenUdp() {
        try {
            return new DatagramSocket(0, InetAddress.getLoopbackAddress());
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
    }

    @SocketHandler("udp-pings")
    static class Pings {

        @OnDatagram
        ByteBuffer pong(ByteBuffer data) {
            return data;
        }
    }
}
