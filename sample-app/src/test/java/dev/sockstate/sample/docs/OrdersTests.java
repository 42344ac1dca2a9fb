package dev.sockstate.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.autoconfigure.message.SockstateMessageAutoConfiguration;
import dev.sockstate.spring.handler.OnMessage;
import dev.sockstate.spring.handler.SocketHandler;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The line protocol with JSON messages of the framing page: its listener ({@code docs/framing.yml}, on
 * an ephemeral port) and its handler, with Jackson, over a real socket.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OrdersTests {

    // tag::order-handler[]
    @SocketHandler("orders")
    static class OrderHandler {

        record Order(String item, int quantity) {}

        record Receipt(String item, int total) {}

        @OnMessage
        Receipt order(Order order) {           // one JSON document per line in, one out
            return new Receipt(order.item(), order.quantity() * 3);
        }
    }
    // end::order-handler[]

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, SockstateMessageAutoConfiguration.class,
                    SockstateAutoConfiguration.class))
            .withInitializer(DocsYaml.load("docs/framing.yml"))
            .withPropertyValues("sockstate.listeners.orders.address=127.0.0.1", "sockstate.listeners.orders.port=0",
                    "sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s")
            .withUserConfiguration(OrderHandler.class);

    @Test
    void oneJsonDocumentPerLineInAndOneOut() {
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            int port = context.getEnvironment().getProperty("local.sockstate.orders.port", Integer.class);
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                client.setSoTimeout(5000);
                BufferedReader replies = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
                client.getOutputStream().write("{\"item\":\"tea\",\"quantity\":2}\n{\"item\":".getBytes(StandardCharsets.UTF_8));
                assertThat(replies.readLine()).isEqualTo("{\"item\":\"tea\",\"total\":6}");
                client.getOutputStream().write("\"cake\",\"quantity\":1}\n".getBytes(StandardCharsets.UTF_8));
                assertThat(replies.readLine()).isEqualTo("{\"item\":\"cake\",\"total\":3}");
            }
        });
    }
}
