package dev.sockstate.server.engine;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** A handler that keeps a copy of every frame (a frame's buffer is valid during its call only) and counts the errors it hears of. */
public final class FrameRecorder implements ConnectionHandler {

    private final List<byte[]> frames = new ArrayList<>();

    private int errors;

    @Override
    public void onData(Connection connection, ByteBuffer data) {
        byte[] copy = new byte[data.remaining()];
        data.get(copy);
        this.frames.add(copy);
    }

    @Override
    public void onError(Connection connection, Throwable error) {
        this.errors++;
    }

    /** @return the frames so far, in order */
    public List<byte[]> frames() {
        return this.frames;
    }

    /** @return how many errors the handler heard of */
    public int errors() {
        return this.errors;
    }
}
