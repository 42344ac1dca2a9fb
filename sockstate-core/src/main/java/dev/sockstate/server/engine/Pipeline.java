package dev.sockstate.server.engine;

import dev.sockstate.server.Connection;
import dev.sockstate.server.Stage;
import dev.sockstate.server.StageContext;
import dev.sockstate.server.engine.HandlerCalls.Callback;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Supplier;

/**
 * The stages of one TCP connection, between its socket and its handler (the contract is
 * {@link Stage}'s). Inbound events enter at the first stage and leave the last one for the handler;
 * the handler's writes enter at the last stage and leave the first one for the socket. Made only for
 * a listener with stages: without, the connection calls its handler and its socket directly.
 * Used by the thread that owns the connection only.
 */
final class Pipeline {

    private final TcpConnection connection;

    private final HandlerCalls handler;

    private final Stage[] stages;

    private final Link[] links;

    /** Whether the open reached the handler, which sees no data before. */
    private boolean handlerOpened;

    Pipeline(TcpConnection connection, HandlerCalls handler, List<Supplier<? extends Stage>> makers) {
        this.connection = connection;
        this.handler = handler;
        this.stages = new Stage[makers.size()];
        this.links = new Link[makers.size()];
        for (int i = 0; i < this.stages.length; i++) {
            this.stages[i] = makers.get(i).get();
            if (this.stages[i] == null) {
                throw new IllegalStateException("Stage maker " + (i + 1) + " of listener '" + connection.listener.name()
                        + "' made no stage");
            }
            this.links[i] = new Link(i);
        }
    }

    /** @return whether the open reached the handler */
    boolean handlerOpened() {
        return this.handlerOpened;
    }

    /** The connection opened: passed to the first stage. */
    void open() {
        passOpen(0);
    }

    /** @param data bytes read from the socket: passed to the first stage */
    void data(ByteBuffer data) {
        passData(0, data);
    }

    /** The peer hung up: passed to the first stage. */
    void hangup() {
        passHangup(0);
    }

    /** @param data the handler's bytes: passed to the last stage */
    void write(ByteBuffer data) {
        passWrite(this.stages.length - 1, data);
    }

    /** The connection is closed: every stage hears it, in inbound order. */
    void closed() {
        for (int i = 0; i < this.stages.length; i++) {
            try {
                this.stages[i].closed(this.links[i]);
            }
            catch (Throwable ex) {
                this.connection.listener.handlerFailed(this.connection, "stage " + describe(i)
                        + " failed as the connection closed", ex);
            }
        }
    }

    private void passOpen(int index) {
        if (this.connection.isAborting()) {
            return;
        }
        if (index == this.stages.length) {
            this.handlerOpened = true;
            this.handler.call(Callback.OPEN, this.connection, null, null);
            return;
        }
        try {
            this.stages[index].open(this.links[index]);
        }
        catch (Throwable ex) {
            stageFailed(index, ex);
        }
    }

    private void passData(int index, ByteBuffer data) {
        if (this.connection.isAborting()) {
            return;
        }
        if (index == this.stages.length) {
            if (!this.handlerOpened) {
                stageFailed(index - 1, new IllegalStateException("Stage " + describe(index - 1)
                        + " passed data on before it passed the open on"));
                return;
            }
            this.handler.call(Callback.DATA, this.connection, data, null);
            return;
        }
        try {
            this.stages[index].data(this.links[index], data);
        }
        catch (Throwable ex) {
            stageFailed(index, ex);
        }
    }

    private void passHangup(int index) {
        if (this.connection.isAborting()) {
            return;
        }
        if (index == this.stages.length) {
            this.handler.call(Callback.HANGUP, this.connection, null, null);
            return;
        }
        try {
            this.stages[index].hangup(this.links[index]);
        }
        catch (Throwable ex) {
            stageFailed(index, ex);
        }
    }

    private void passWrite(int index, ByteBuffer data) {
        if (this.connection.isAborting()) {
            data.position(data.limit());
            return;
        }
        if (index < 0) {
            this.connection.writeToSocket(data);
            return;
        }
        try {
            this.stages[index].write(this.links[index], data);
        }
        catch (Throwable ex) {
            data.position(data.limit());
            stageFailed(index, ex);
        }
    }

    private void stageFailed(int index, Throwable failure) {
        if (!this.connection.isAborting()) {
            this.connection.listener.handlerFailed(this.connection, "stage " + describe(index) + " failed; aborting the connection",
                    failure);
            this.connection.failed(failure);
        }
    }

    private String describe(int index) {
        return (index + 1) + " (" + this.stages[index].getClass().getName() + ")";
    }

    /** A stage's context: its place in the pipeline. */
    private final class Link implements StageContext {

        private final int index;

        Link(int index) {
            this.index = index;
        }

        @Override
        public Connection connection() {
            return Pipeline.this.connection;
        }

        @Override
        public void passOpen() {
            Pipeline.this.passOpen(this.index + 1);
        }

        @Override
        public void passData(ByteBuffer message) {
            Pipeline.this.passData(this.index + 1, message);
        }

        @Override
        public void passHangup() {
            Pipeline.this.passHangup(this.index + 1);
        }

        @Override
        public void write(ByteBuffer data) {
            Pipeline.this.passWrite(this.index - 1, data);
        }

        @Override
        public void close() {
            Pipeline.this.connection.close();
        }

        @Override
        public void abort(Throwable reason) {
            Pipeline.this.connection.failed(reason);
        }
    }
}
