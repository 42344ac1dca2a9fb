package dev.sockstate.autoconfigure.actuate;

import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import java.nio.ByteBuffer;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** A web application with Actuator, Micrometer and an echo listener (its handler a member component). */
@SpringBootConfiguration
@EnableAutoConfiguration
class ObservabilityApplication {

    @SocketHandler("echo")
    static class Echo {

        @OnData
        ByteBuffer echo(ByteBuffer data) {
            return data;
        }
    }
}
