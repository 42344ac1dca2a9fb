package dev.sockstate.sample;

import dev.sockstate.autoconfigure.handler.OnData;
import dev.sockstate.autoconfigure.handler.SocketHandler;
import java.nio.ByteBuffer;

/**
 * The reference's multi-threaded server: level-triggered one-shot registrations on the shared
 * worker pool, echoing every byte back.
 */
@SocketHandler("echo")
public class EchoHandler {

    @OnData
    ByteBuffer echo(ByteBuffer data) {
        return data;
    }
}
