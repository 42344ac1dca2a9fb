package dev.sockstate.server.engine;

import dev.sockstate.server.Connection;
import dev.sockstate.server.Stage;
import dev.sockstate.server.StageContext;
import dev.sockstate.server.engine.HandlerCalls.Callback;
import dev.sockstate.server.engine.tls.TlsStage;
import dev.sockstate.server.engine.turn.Handoff;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The stages of one TCP connection, between its socket and its handler (the contract is
 * {@link Stage}'s). Inbound events enter at the first stage and leave the last one for the handler;
 * the handler's writes enter at the last stage and leave the first one for the socket. Made only for
 * a listener with stages: without, the connection calls its handler and its socket directly.
 * Used by the thread that owns the connection only.
 * <p>
 * Position {@code i} is stage {@code i}, and position {@code stages.length} the handler: each has
 * seen the open or not, and sees no data before it did; an open passed twice reaches it once. Once
 * the connection is closed every link is dead: what a stage passes on or writes from
 * {@link Stage#closed} is dropped, since the socket is gone.
 * <p>
 * A stage that resumes from another thread ({@link StageContext#resume}) leaves its task in a queue,
 * made on first use, and asks for a turn; the owner runs the queue at the start of each turn, before
 * the events of that turn are passed.
 */
final class Pipeline {

    private final RouteHost connection;

    private final HandlerCalls handler;

    /** Where a stage's failure is logged and counted. */
    private final ListenerState reports;

    private final Stage[] stages;

    private final Link[] links;

    /** The route's TLS stage, where its TLS starts on the handler's request; {@code null} otherwise. */
    private final @Nullable TlsStage startsTls;

    /** Its position. */
    private final int tlsIndex;

    /** Which positions (the stages, then the handler) the open reached. */
    private final boolean[] opened;

    /** Which stages hold the input, a bit each (the 64th for it and those after it): the input is read only once none does. */
    private long holds;

    /** Whether the connection is closed: nothing is passed on any more. */
    private boolean closed;

    /** Tasks stages resumed, from any thread, waiting for the owner, newest first; {@code null} when none waits. */
    @SuppressWarnings("unused")
    private volatile @Nullable Handoff<Resumed> resumed;

    private static final VarHandle RESUMED;

    static {
        try {
            RESUMED = MethodHandles.lookup().findVarHandle(Pipeline.class, "resumed", Handoff.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /**
     * Makes the connection's stages, in inbound order: the route's own first (the PROXY protocol's,
     * TLS's), then the listener's; if a maker fails, the stages made so far hear {@link Stage#closed}
     * before the failure is thrown on.
     * @param connection the connection the stages serve
     * @param handler the route's terminal
     * @param reports where a stage's failure is logged and counted
     * @param makers the makers of the stages, in inbound order
     * @param builtIn how many of the first makers are the route's own, not the listener's
     */
    Pipeline(RouteHost connection, HandlerCalls handler, ListenerState reports, List<Function<RouteHost, ? extends Stage>> makers,
            int builtIn) {
        this.connection = connection;
        this.handler = handler;
        this.reports = reports;
        this.stages = new Stage[makers.size()];
        this.links = new Link[this.stages.length];
        this.opened = new boolean[this.stages.length + 1];
        for (int i = 0; i < this.stages.length; i++) {
            try {
                Stage stage = makers.get(i).apply(connection);
                if (stage == null) {
                    throw new IllegalStateException("Stage maker " + (i - builtIn + 1) + " of " + reports.label() + " made no stage");
                }
                this.stages[i] = stage;
                this.links[i] = new Link(i);
            }
            catch (RuntimeException | Error ex) {
                closeStages(i);
                throw ex;
            }
        }
        int tls = -1;
        for (int i = 0; i < builtIn && tls < 0; i++) {
            if (this.stages[i] instanceof TlsStage stage && stage.startsOnRequest()) {
                tls = i;
            }
        }
        this.tlsIndex = tls;
        this.startsTls = (tls >= 0) ? (TlsStage) this.stages[tls] : null;
    }

    /** @return whether the connection's TLS starts on its handler's request ({@link Connection#startTls()}) */
    boolean startsTlsOnRequest() {
        return this.startsTls != null;
    }

    /**
     * Starts TLS, as the handler asked ({@link Connection#startTls()}); a stage that cannot (its engine
     * not made) aborts the connection. Nothing starts on a connection that is closed.
     * @param before what goes out first, in plaintext (the replies framed so far)
     * @throws IllegalStateException where TLS does not start on request, or was started already
     */
    void startTls(Runnable before) {
        TlsStage tls = this.startsTls;
        if (tls == null) {
            throw new IllegalStateException("Connection " + this.connection.id() + " has no TLS to start on request (Tls.withStartTls,"
                    + " ssl.start-tls)");
        }
        if (!tls.awaitsStart()) {
            throw new IllegalStateException("TLS was started already on connection " + this.connection.id());
        }
        if (dead()) {
            return;
        }
        before.run();
        try {
            tls.startTls();
        }
        catch (Throwable ex) {
            stageFailed(this.tlsIndex, ex);
        }
    }

    /**
     * @return whether TLS just started and the bytes held after the command are still to be handed
     * back ({@link #tlsRest}): nothing more is handed out above meanwhile
     */
    boolean tlsStarting() {
        return this.startsTls != null && this.startsTls.awaitsRest();
    }

    /**
     * @return whether TLS just started outside a read being passed on (from another thread's request,
     * or between reads): what the framing keeps unhanded is then to be handed back at once
     */
    boolean tlsStartedBetweenReads() {
        return this.startsTls != null && this.startsTls.awaitsRest() && !this.startsTls.passesPlaintext();
    }

    /** @param rest the bytes that followed the command that started TLS: the handshake's first bytes; consumed */
    void tlsRest(ByteBuffer rest) {
        try {
            this.startsTls.restAfterStart(rest);
        }
        catch (Throwable ex) {
            rest.position(rest.limit());
            stageFailed(this.tlsIndex, ex);
        }
    }

    /** @return the stage at that position, in inbound order */
    Stage stage(int index) {
        return this.stages[index];
    }

    /** @return whether the open reached the handler */
    boolean handlerOpened() {
        return this.opened[this.stages.length];
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

    /** The connection is closed: every stage hears it, in inbound order, and the links die. */
    void closed() {
        this.closed = true;
        Handoff.takeAll(RESUMED, this);
        closeStages(this.stages.length);
    }

    /** The output ends gracefully: the stages that saw the open hear of it, in outbound order, and may write. */
    void outputEnding() {
        for (int i = this.stages.length - 1; i >= 0; i--) {
            if (dead()) {
                return;
            }
            if (this.opened[i]) {
                try {
                    this.stages[i].outputEnding(this.links[i]);
                }
                catch (Throwable ex) {
                    stageFailed(i, ex);
                }
            }
        }
    }

    /** @return whether stages resumed tasks that wait for the owner */
    boolean hasResumes() {
        return Handoff.waits(RESUMED, this);
    }

    /** Runs the tasks stages resumed, in order; the owner, at the start of a turn. */
    void runResumes() {
        Handoff<Resumed> next;
        while ((next = Handoff.takeAll(RESUMED, this)) != null) {
            for (; next != null; next = next.next) {
                if (dead()) {
                    Handoff.takeAll(RESUMED, this);
                    return;
                }
                try {
                    next.item.task.run();
                }
                catch (Throwable ex) {
                    stageFailed(next.item.index, ex);
                }
            }
        }
    }

    private void resume(int index, Runnable task) {
        Handoff.push(RESUMED, this, new Resumed(index, task));
        this.connection.requestTurn();
    }

    /** A stage holds the input or releases its hold: the connection reads only once no stage holds it. */
    private void holdInput(int index, boolean hold) {
        long bit = 1L << Math.min(index, 63);
        this.holds = hold ? (this.holds | bit) : (this.holds & ~bit);
        this.connection.holdInput(this.holds != 0);
    }

    private void closeStages(int count) {
        for (int i = 0; i < count; i++) {
            try {
                this.stages[i].closed(this.links[i]);
            }
            catch (Throwable ex) {
                this.reports.handlerFailed(this.connection, "stage " + describe(i) + " failed as the connection closed",
                        ex);
            }
        }
    }

    private boolean dead() {
        return this.closed || this.connection.isAborting();
    }

    private void passOpen(int index) {
        if (dead() || this.opened[index]) {
            return;
        }
        this.opened[index] = true;
        if (index == this.stages.length) {
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
        if (dead()) {
            return;
        }
        if (!this.opened[index]) {
            stageFailed(index - 1, new IllegalStateException("Stage " + describe(index - 1)
                    + " passed data on before it passed the open on"));
            return;
        }
        if (index == this.stages.length) {
            this.connection.handlerEnd(data);
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
        if (dead()) {
            return;
        }
        if (index == this.stages.length) {
            if (handlerOpened()) {
                this.handler.call(Callback.HANGUP, this.connection, null, null);
            }
            else {
                // The peer left before the open reached the handler: close, as the handler's default would.
                this.connection.close();
            }
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
        if (dead()) {
            data.position(data.limit());
            return;
        }
        if (index < 0) {
            this.connection.socketEnd(data, false);
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
        if (!dead()) {
            this.reports.handlerFailed(this.connection, "stage " + describe(index) + " failed; aborting the connection",
                    failure);
            this.connection.failed(failure);
        }
    }

    private String describe(int index) {
        return (index < 0) ? "0 (the socket)" : (index + 1) + " (" + this.stages[index].getClass().getName() + ")";
    }

    /** A task a stage resumed. */
    private record Resumed(int index, Runnable task) {
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
            if (!dead()) {
                Pipeline.this.connection.failed(reason);
            }
        }

        @Override
        public void fail(Throwable reason) {
            if (!dead()) {
                Pipeline.this.connection.failedAfterWrites(reason);
            }
        }

        @Override
        public void resume(Runnable task) {
            Pipeline.this.resume(this.index, task);
        }

        @Override
        public void holdInput(boolean hold) {
            Pipeline.this.holdInput(this.index, hold);
        }

        @Override
        public boolean takesInput() {
            return Pipeline.this.connection.takesInput();
        }

        @Override
        public <T> void publish(Class<T> type, T value) {
            Pipeline.this.connection.publish(type, value);
        }

        @Override
        public void peerAddress(SocketAddress address) {
            Pipeline.this.connection.peerAddress(address);
        }

        @Override
        public Deadline deadline(Duration delay, Runnable task) {
            int index = this.index;
            return Pipeline.this.connection.deadline(Math.max(0, delay.toMillis()), () -> Pipeline.this.resume(index, task));
        }
    }
}
