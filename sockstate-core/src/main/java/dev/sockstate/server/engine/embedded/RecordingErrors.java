package dev.sockstate.server.engine.embedded;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The handler of an embedded connection's listener as the engine calls it: every call passed
 * to the user's handler unchanged (what it throws too), and what reaches its {@code onError} noted
 * first, for the test to read.
 */
public final class RecordingErrors implements ConnectionHandler {

    private final ConnectionHandler handler;

    private final List<Throwable> errors;

    /**
     * @param handler the user's handler
     * @param errors where to note what reaches its {@code onError}
     */
    public RecordingErrors(ConnectionHandler handler, List<Throwable> errors) {
        this.handler = handler;
        this.errors = errors;
    }

    @Override
    public void onOpen(Connection connection) throws Exception {
        this.handler.onOpen(connection);
    }

    @Override
    public void onData(Connection connection, ByteBuffer data) throws Exception {
        this.handler.onData(connection, data);
    }

    @Override
    public void onWritable(Connection connection) throws Exception {
        this.handler.onWritable(connection);
    }

    @Override
    public void onHangup(Connection connection) throws Exception {
        this.handler.onHangup(connection);
    }

    @Override
    public void onError(Connection connection, Throwable error) {
        this.errors.add(error);
        this.handler.onError(connection, error);
    }

    @Override
    public void onClose(Connection connection) {
        this.handler.onClose(connection);
    }

    @Override
    public String toString() {
        return this.handler.toString();
    }
}
