package dev.sockstate.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.admission.Admission;
import dev.sockstate.server.admission.Rate;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The admission example of the listeners page ({@code docs/admission.yml}, on an ephemeral port): each key
 * binds to the rule it names, and the listener serves a source the rules let in.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AdmissionDocsTests {

    @SocketHandler("gateway")
    static class Echo {

        @OnData
        ByteBuffer echo(ByteBuffer data) {
            return data;
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateAutoConfiguration.class))
            .withInitializer(DocsYaml.load("docs/admission.yml"))
            .withPropertyValues("sockstate.listeners.gateway.address=127.0.0.1", "sockstate.listeners.gateway.port=0",
                    "sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s")
            .withUserConfiguration(Echo.class);

    @Test
    void theDocumentedRulesBindAndTheListenerServesASourceTheyLetIn() {
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            SocketServer server = context.getBean(SocketServer.class);
            Admission admission = server.listenerSettings("gateway").admission();
            assertThat(admission.deny()).containsExactly("192.0.2.0/24", "2001:db8:bad::/48");
            assertThat(admission.maxConnectionsPerSource()).isEqualTo(100);
            assertThat(admission.ipv6SourcePrefix()).isEqualTo(64);
            assertThat(admission.sourceRate()).isEqualTo(new Rate(20, 40));
            assertThat(admission.listenerRate()).isEqualTo(new Rate(2000, 2000));
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.listener("gateway").portNumber())) {
                client.setSoTimeout(5000);
                client.getOutputStream().write('x');
                assertThat(client.getInputStream().read()).isEqualTo('x');
            }
        });
    }
}
