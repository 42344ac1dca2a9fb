package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Coalescing;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Multicast;
import dev.sockstate.server.engine.SocketServer;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A UDP listener's {@code receive-batch}, {@code max-datagram-size}, {@code coalescing} and {@code multicast.*}: mapped onto the runtime's
 * settings, their defaults, and values out of range refused naming their property. The server is
 * built, not started.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DatagramPropertiesTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class, SockstateAutoConfiguration.class))
            .withUserConfiguration(TestHandlers.AllConfiguration.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.shutdown.timeout=1s", "sockstate.auto-startup=false",
                    "sockstate.listeners.echo.port=0", "sockstate.listeners.upper.port=0", "sockstate.listeners.udp.protocol=udp",
                    "sockstate.listeners.udp.port=0");

    @Test
    void aUdpListenersBatchAndDatagramRoomAreMapped() {
        this.runner.withPropertyValues("sockstate.listeners.udp.receive-batch=64", "sockstate.listeners.udp.max-datagram-size=2KB")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    ListenerSettings udp = context.getBean(SocketServer.class).listenerSettings("udp");
                    assertThat(udp.receiveBatch()).isEqualTo(64);
                    assertThat(udp.maxDatagramSize()).isEqualTo(2048);
                });
    }

    @Test
    void aUdpListenerTakesSixteenDatagramsACallIntoTheGroupsReadBufferSizeUnlessToldOtherwise() {
        this.runner.run((context) -> {
            ListenerSettings udp = context.getBean(SocketServer.class).listenerSettings("udp");
            assertThat(udp.receiveBatch()).isEqualTo(ListenerSettings.DEFAULT_RECEIVE_BATCH).isEqualTo(16);
            assertThat(udp.maxDatagramSize()).as("the group's read buffer size").isZero();
        });
    }

    @Test
    void aUdpListenerReceivesEachDatagramAloneUnlessToldToTakeThemCoalesced() {
        this.runner.run((context) -> assertThat(context.getBean(SocketServer.class).listenerSettings("udp").coalescing())
                .isEqualTo(Coalescing.OFF));
        this.runner.withPropertyValues("sockstate.listeners.udp.coalescing=whole").run((context) -> assertThat(
                context.getBean(SocketServer.class).listenerSettings("udp").coalescing()).isEqualTo(Coalescing.WHOLE));
    }

    @Test
    void coalescingOnATcpListenerFailsNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.echo.coalescing=segments")
                .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining("sockstate.listeners.echo.coalescing").hasMessageContaining("TCP"));
    }

    @Test
    void aBatchOverTheSystemsLimitFailsNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.udp.receive-batch=2000")
                .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining("sockstate.listeners.udp.receive-batch").hasMessageContaining("between 1 and 1024"));
    }

    @Test
    void aDatagramRoomOverWhatUdpCarriesFailsNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.udp.max-datagram-size=1MB")
                .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining("sockstate.listeners.udp.max-datagram-size").hasMessageContaining("65536"));
    }

    @Test
    void aUdpListenersMulticastGroupsInterfaceHopsAndLoopbackAreMapped() throws Exception {
        this.runner.withPropertyValues("sockstate.listeners.udp.multicast.groups[0].address=239.1.2.3",
                "sockstate.listeners.udp.multicast.groups[1].address=232.1.1.1", "sockstate.listeners.udp.multicast.groups[1].source=10.0.0.5",
                "sockstate.listeners.udp.multicast.network-interface=eth9", "sockstate.listeners.udp.multicast.hops=4",
                "sockstate.listeners.udp.multicast.loopback=false").run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(SocketServer.class).listenerSettings("udp").multicast())
                            .isEqualTo(Multicast.NONE.withNetworkInterface("eth9").withHops(4).withLoopback(false)
                                    .join(InetAddress.getByName("239.1.2.3"))
                                    .join(new Multicast.Group(InetAddress.getByName("232.1.1.1"), InetAddress.getByName("10.0.0.5"))));
                });
    }

    @Test
    void aUdpListenerWithoutMulticastPropertiesJoinsNothing() {
        this.runner.run((context) -> assertThat(context.getBean(SocketServer.class).listenerSettings("udp").multicast())
                .isEqualTo(Multicast.NONE));
    }

    @Test
    void aGroupThatIsNoMulticastAddressFailsNamingItsProperty() {
        this.runner.withPropertyValues("sockstate.listeners.udp.multicast.groups[0].address=10.1.2.3")
                .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining("sockstate.listeners.udp.multicast.groups[0].address").hasMessageContaining("not a multicast address"));
    }

    @Test
    void aGroupWrittenAsAHostNameFailsNamingItsProperty() {
        this.runner.withPropertyValues("sockstate.listeners.udp.multicast.groups[0].address=groups.example")
                .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining("sockstate.listeners.udp.multicast.groups[0].address").hasMessageContaining("not a host name"));
    }

    @Test
    void aSourceOfAnotherFamilyFailsNamingItsProperty() {
        this.runner.withPropertyValues("sockstate.listeners.udp.multicast.groups[0].address=232.1.1.1",
                "sockstate.listeners.udp.multicast.groups[0].source=fd00::5")
                .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining("sockstate.listeners.udp.multicast.groups[0].source").hasMessageContaining("another address family"));
    }

    @Test
    void multicastOnATcpListenerFailsNamingTheProperty() {
        this.runner.withPropertyValues("sockstate.listeners.echo.multicast.groups[0].address=239.1.2.3")
                .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining("sockstate.listeners.echo.multicast").hasMessageContaining("UDP listeners"));
    }
}
