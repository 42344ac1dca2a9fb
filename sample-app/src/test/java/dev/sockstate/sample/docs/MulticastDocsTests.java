package dev.sockstate.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.Multicast;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.spring.handler.OnDatagram;
import dev.sockstate.spring.handler.SocketHandler;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The multicast example of the listeners page ({@code docs/multicast.yml}): its keys bind to the groups,
 * the interface, the hops and the loopback they describe. (Its interface is the example's: the server is
 * built, not started; joining groups on a real interface is the core's {@code MulticastTest}.)
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MulticastDocsTests {

    @SocketHandler("telemetry")
    static class Telemetry {

        @OnDatagram
        void receive(byte[] datagram) {
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateAutoConfiguration.class))
            .withInitializer(DocsYaml.load("docs/multicast.yml"))
            .withPropertyValues("sockstate.auto-startup=false", "sockstate.workers.threads=1")
            .withUserConfiguration(Telemetry.class);

    @Test
    void theDocumentedGroupsBind() {
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(SocketServer.class).listenerSettings("telemetry").multicast())
                    .isEqualTo(Multicast.NONE.withNetworkInterface("eth1").withLoopback(false).join(InetAddress.getByName("239.10.0.1"))
                            .join(new Multicast.Group(InetAddress.getByName("232.10.0.2"), InetAddress.getByName("10.0.5.17")))
                            .join(InetAddress.getByName("ff15::10")));
        });
    }
}
