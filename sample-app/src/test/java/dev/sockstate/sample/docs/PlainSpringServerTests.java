package dev.sockstate.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backends;
import dev.sockstate.port.Protocol;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.spring.handler.OnMessage;
import dev.sockstate.spring.handler.SocketHandler;
import dev.sockstate.spring.handler.SocketHandlers;
import dev.sockstate.spring.handler.SocketHandlers.ListenerKind;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * The core page's Spring application without Spring Boot: a {@code @SocketHandler} bean in a plain
 * application context, adapted by {@link SocketHandlers} and served by a server the application builds.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PlainSpringServerTests {

    @SocketHandler("greeter")
    static class Greeter {

        @OnMessage
        String greet(String name) {
            return "hello " + name;
        }
    }

    // tag::plain-spring[]
    static SocketServer start(ApplicationContext context, InetAddress address, int port) {
        SocketHandlers handlers = SocketHandlers.resolve(context, Map.of("greeter", new ListenerKind(Protocol.TCP, true, null)));
        SocketServer server = new SocketServer(Backends.select("auto"),
                List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 2)),
                List.of(ListenerSettings.tcp("greeter").address(address).portNumber(port).framing(Framing.line())
                        .handler(handlers.connectionHandler("greeter")).build()),
                ServerObserver.NONE);
        server.start();
        return server;   // server.stop(Duration.ofSeconds(5)) before the context closes
    }
    // end::plain-spring[]

    @Test
    void theBeanAnswersEachLine() throws Exception {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Greeter.class)) {
            SocketServer server = start(context, InetAddress.getLoopbackAddress(), 0);
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.listener("greeter").portNumber())) {
                client.setSoTimeout(5000);
                client.getOutputStream().write("world\n".getBytes(StandardCharsets.UTF_8));
                BufferedReader replies = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
                assertThat(replies.readLine()).isEqualTo("hello world");
            }
            finally {
                server.stop(Duration.ofSeconds(5));
            }
        }
    }
}
