package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.observer.ServerObserver;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The line a server logs for each listener it bound and each client: the addresses as users write them. */
class StartupLogTest {

    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
    }

    @Test
    void eachListenerAndClientIsLoggedWithItsAddressAsUsersWriteItWithoutALeadingSlash() throws Exception {
        try (LogLines log = new LogLines(SocketServer.class)) {
            List<String> lines = log.lines();
            SocketServer server = this.fixture.start(1, ServerFixture.tcp("v4").handler(new EchoHandler()).build(),
                    ListenerSettings.tcp("v6").address(InetAddress.getByName("::1")).portNumber(0).handler(new EchoHandler()).build());
            int v4 = server.listener("v4").portNumber();
            int v6 = server.listener("v6").portNumber();
            String backend = server.backendName();
            this.fixture.startWithClients(List.of(ClientSettings.builder("out").address("localhost", v4).address("[::1]:" + v6).poolSize(2)
                    .build()), ServerObserver.NONE);
            assertThat(lines).anyMatch((line) -> line.equals("Client 'out' connects to localhost:" + v4 + ", then [::1]:" + v6
                    + " (a pool of 2) on " + backend));
            assertThat(lines).anyMatch((line) -> line.equals("Listener 'v4' (TCP, LEVEL_ONESHOT) bound to 127.0.0.1:" + v4 + " on " + backend))
                    .anyMatch((line) -> line.equals("Listener 'v6' (TCP, LEVEL_ONESHOT) bound to [::1]:" + v6 + " on " + backend))
                    .noneMatch((line) -> line.contains("bound to /"));
        }
    }

    @Test
    void addressesAreWrittenInTheirShortForm() throws Exception {
        assertThat(AddressText.of(new java.net.InetSocketAddress(InetAddress.getByName("::"), 7007))).isEqualTo("[::]:7007");
        assertThat(AddressText.of(new java.net.InetSocketAddress(InetAddress.getByName("2001:db8:0:0:1:0:0:1"), 1)))
                .isEqualTo("[2001:db8::1:0:0:1]:1");
        assertThat(AddressText.of(new java.net.InetSocketAddress(InetAddress.getByName("1:0:0:2:0:0:0:3"), 1)))
                .isEqualTo("[1:0:0:2::3]:1");
        assertThat(AddressText.of(new java.net.InetSocketAddress(InetAddress.getByName("1:2:3:4:5:6:7:8"), 1)))
                .isEqualTo("[1:2:3:4:5:6:7:8]:1");
        assertThat(AddressText.of(new java.net.InetSocketAddress(InetAddress.getByName("0.0.0.0"), 80))).isEqualTo("0.0.0.0:80");
        assertThat(AddressText.of(java.net.UnixDomainSocketAddress.of("/run/app/echo.sock"))).isEqualTo("unix:/run/app/echo.sock");
    }
}
