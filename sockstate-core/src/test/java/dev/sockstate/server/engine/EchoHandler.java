package dev.sockstate.server.engine;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/** Echoes every byte, and records what the runtime told it. */
class EchoHandler implements ConnectionHandler {

    final AtomicInteger opened = new AtomicInteger();

    final AtomicInteger closed = new AtomicInteger();

    final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();

    @Override
    public void onOpen(Connection connection) throws Exception {
        this.opened.incrementAndGet();
    }

    @Override
    public void onData(Connection connection, ByteBuffer data) throws Exception {
        connection.write(data);
    }

    @Override
    public void onError(Connection connection, Throwable error) {
        this.errors.add(error);
    }

    @Override
    public void onClose(Connection connection) {
        this.closed.incrementAndGet();
    }
}
