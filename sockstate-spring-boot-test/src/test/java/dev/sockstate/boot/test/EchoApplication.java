package dev.sockstate.boot.test;

import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import java.nio.ByteBuffer;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** The application these tests start: an echo handler for the listener {@code echo}. */
@SpringBootConfiguration
@EnableAutoConfiguration
class EchoApplication {

    @SocketHandler("echo")
    static class Echo {

        @OnData
        ByteBuffer echo(ByteBuffer data) {
            return data;
        }
    }
}
