package dev.sockstate.sample;

import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import java.nio.ByteBuffer;

/**
 * The reference's multi-threaded server: level-triggered one-shot registrations on the shared
 * worker pool, echoing every byte back.
 */
// tag::echo-handler[]
@SocketHandler("echo")
public class EchoHandler {

    @OnData
    ByteBuffer echo(ByteBuffer data) {
        return data;
    }
}
// end::echo-handler[]
