package dev.sockstate.autoconfigure.message;

import static dev.sockstate.port.SocketReads.readLine;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.spring.handler.OnMessage;
import dev.sockstate.spring.handler.SocketHandler;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The way one TCP read takes from the worker's dequeue to a user's {@code @OnMessage} method, as the
 * thread's stack shows it in that method: few classes, each with one job. Counted are sockstate's
 * own classes (the user's and the JDK's, and the method handles' hidden frames, are not).
 */
class ReadPathTests {

    /** The most of sockstate's classes one read passes through on its way to the user's method. */
    private static final int MOST_CLASSES = 10;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, SockstateMessageAutoConfiguration.class,
                    SockstateAutoConfiguration.class))
            .withUserConfiguration(PathConfiguration.class)
            .withPropertyValues("sockstate.workers.threads=2", "sockstate.shutdown.timeout=5s",
                    "sockstate.listeners.path.address=127.0.0.1", "sockstate.listeners.path.port=0", "sockstate.listeners.path.framing.type=line");

    @Test
    void aReadReachesOnMessageThroughAtMostTenOfSockstatesClasses() {
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            int port = context.getEnvironment().getProperty("local.sockstate.path.port", Integer.class);
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                client.setSoTimeout(5000);
                client.getOutputStream().write("where\n".getBytes(StandardCharsets.UTF_8));
                assertThat(readLine(client)).isEqualTo("here");
            }
            List<String> path = context.getBean(Path.class).classes;
            assertThat(path).as("sockstate's classes on the stack in @OnMessage, from the worker on")
                    .startsWith("dev.sockstate.server.engine.turn.Worker").hasSizeLessThanOrEqualTo(MOST_CLASSES);
        });
    }

    @SocketHandler("path")
    static class Path {

        volatile List<String> classes = List.of();

        @OnMessage
        String where(String text) {
            Set<String> seen = new LinkedHashSet<>();
            StackTraceElement[] stack = Thread.currentThread().getStackTrace();
            for (int i = stack.length - 1; i >= 0; i--) {
                String type = stack[i].getClassName();
                int nested = type.indexOf('$');
                String outer = (nested > 0) ? type.substring(0, nested) : type;
                if (outer.startsWith("dev.sockstate.") && !outer.equals(ReadPathTests.class.getName())) {
                    seen.add(outer);
                }
            }
            this.classes = new ArrayList<>(seen);
            return "here";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PathConfiguration {

        @Bean
        Path path() {
            return new Path();
        }
    }
}
