package dev.sockstate.benchmarks.e2e;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.spring.handler.SocketHandler;
import java.nio.ByteBuffer;

/** The echo handler of the starter-based server: a {@link SocketHandler} bean, as a user writes one. */
@SocketHandler("echo")
class StarterEchoHandler implements ConnectionHandler {

    @Override
    public void onData(Connection connection, ByteBuffer data) {
        connection.write(data);
    }
}
