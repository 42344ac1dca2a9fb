package dev.sockstate.server;

import dev.sockstate.port.Events;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.Trigger;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;

/**
 * An accepted TCP connection. Reads go into the worker's buffer; writes that the socket does not
 * take at once wait in a {@link WriteQueue} that exists only while something is pending. Fields
 * without {@code volatile} are touched only by the thread that owns the registration.
 * <p>
 * Level-triggered, a turn reads once and re-arms. Edge-triggered, a turn reads until the socket
 * would block, or, in the exclusive edge mode, until a read comes back shorter than the buffer
 * (the socket was drained then; later data raises a new edge) unless the notification carried a
 * hang-up, after which it reads until end of stream, since data and FIN can arrive in one read.
 * Either way a turn reads at most {@link #EDGE_READ_BUDGET} times, then yields to other sockets.
 */
final class TcpConnection extends Registration implements Connection {

    /** Reads per turn with an edge trigger before other sockets get theirs. */
    static final int EDGE_READ_BUDGET = 16;

    private static final int OPEN = 0;

    private static final int DATA = 1;

    private static final int WRITABLE = 2;

    private static final int HANGUP = 3;

    private static final int ERROR = 4;

    private static final int CLOSE = 5;

    private static final Object SHUTDOWN_OUTPUT = new Object();

    private final ListenerRuntime listener;

    private final long id;

    private WriteQueue writeQueue;

    private boolean inputClosed;

    private boolean readPaused;

    private boolean wouldBlock;

    private boolean inputDrained;

    private boolean writeBlocked;

    private boolean outputShutdownRequested;

    private boolean outputShut;

    private int turnReads;

    private volatile long pendingBytes;

    private volatile long lastActivity;

    private volatile Queue<Object> foreignRequests;

    private volatile Map<String, Object> attributes;

    private volatile Object attachment;

    private volatile InetSocketAddress remoteAddress;

    private volatile InetSocketAddress localAddress;

    TcpConnection(ListenerRuntime listener, long handle) {
        super(listener.group, handle, true);
        this.listener = listener;
        this.id = listener.connectionIds.incrementAndGet();
        touch();
    }

    /** Calls {@code onOpen} and arms the registration; called by the accepting thread, which owns it. */
    void open(Worker worker) {
        Executor executor = this.listener.settings.handlerExecutor();
        if (executor != null && worker != null) {
            handOff(executor, OPEN, null);
            return;
        }
        call(OPEN, null, null);
        release(worker);
    }

    @Override
    Trigger trigger() {
        return this.listener.settings.trigger();
    }

    @Override
    ListenerObserver observer() {
        return this.listener.observer;
    }

    @Override
    void startTurn() {
        this.turnReads = 0;
    }

    @Override
    boolean handle(Worker worker, int events) {
        if (isAborting()) {
            return true;
        }
        takeForeignRequests();
        if ((events & Events.ERR) != 0) {
            failed(pendingError());
            return true;
        }
        if (this.writeQueue != null) {
            flush();
            if (this.readPaused && this.writeQueue == null && trigger().isEdge()) {
                events |= Events.IN;
            }
        }
        if ((events & (Events.IN | Events.HANGUP)) != 0 && !this.inputClosed && !isClosing() && !isAborting()) {
            if (!read(worker, events)) {
                return false;
            }
        }
        else if (isDraining() && !this.inputDrained && this.writeQueue == null) {
            // A graceful shutdown: answer what already arrived, then look again, until nothing is left.
            if (!read(worker, Events.IN)) {
                return false;
            }
            if (this.wouldBlock || this.inputClosed) {
                this.inputDrained = true;
            }
            else {
                this.group.postRun(this);
            }
        }
        if (this.outputShutdownRequested && this.writeQueue == null && !this.outputShut && !isAborting()) {
            shutOutput();
        }
        return true;
    }

    /** @return false when the handler call was handed to the listener's executor */
    private boolean read(Worker worker, int events) {
        NativeSockets sockets = this.group.sockets;
        NativeBuffer buffer = (worker != null) ? worker.readBuffer : this.group.offWorkerBuffer();
        ByteBuffer bytes = buffer.buffer();
        boolean edge = trigger().isEdge();
        boolean shortReadDrains = this.listener.settings.exclusiveEdge() && (events & Events.HANGUP) == 0;
        while (true) {
            if (edge && this.turnReads >= EDGE_READ_BUDGET) {
                // Budget spent with data maybe left: come back after the other sockets had their turn.
                yieldTurn(Events.IN | (events & Events.HANGUP));
                return true;
            }
            bytes.clear();
            int read;
            try {
                read = sockets.recv(this.handle, buffer);
            }
            catch (NativeIoException ex) {
                failed(ex);
                return true;
            }
            this.wouldBlock = read == NativeSockets.WOULD_BLOCK;
            if (read == NativeSockets.WOULD_BLOCK) {
                if ((events & Events.HANGUP) != 0 && (events & Events.IN) == 0) {
                    hungUp();
                }
                return true;
            }
            if (read == 0) {
                hungUp();
                return true;
            }
            this.turnReads++;
            this.listener.observer.received(read);
            touch();
            bytes.flip();
            Executor executor = this.listener.settings.handlerExecutor();
            if (executor != null && worker != null) {
                ByteBuffer copy = ByteBuffer.allocate(read).put(bytes);
                copy.flip();
                handOff(executor, DATA, copy);
                return false;
            }
            call(DATA, bytes, null);
            if (isClosing() || this.inputClosed || isReadPausedForWrites()) {
                return true;
            }
            if (!edge || (shortReadDrains && read < bytes.capacity())) {
                return true;
            }
        }
    }

    private void hungUp() {
        this.inputClosed = true;
        call(HANGUP, null, null);
    }

    private void handOff(Executor executor, int callback, ByteBuffer data) {
        handOver();
        executor.execute(() -> {
            takeOver();
            call(callback, data, null);
            release(null);
        });
    }

    @Override
    int nextFilter() {
        int filter = 0;
        if (!this.inputClosed && !isClosing()) {
            if (isReadPausedForWrites()) {
                this.readPaused = true;
            }
            else {
                this.readPaused = false;
                filter |= this.listener.settings.events();
            }
        }
        if (this.writeQueue != null) {
            filter |= Events.OUT;
        }
        return filter;
    }

    private boolean isReadPausedForWrites() {
        return this.writeQueue != null && this.writeQueue.bytes() > this.listener.settings.maxPendingWriteBytes();
    }

    @Override
    boolean readyToClose() {
        return isAborting() || (this.writeQueue == null && (this.inputDrained || this.inputClosed || !isDraining()));
    }

    @Override
    void finish() {
        closeSocket();
        this.writeQueue = null;
        this.foreignRequests = null;
        this.pendingBytes = 0;
        this.listener.connections.decrementAndGet();
        call(CLOSE, null, null);
        this.attachment = null;
    }

    // ---- writing ------------------------------------------------------------------------------

    @Override
    public void write(ByteBuffer data) {
        if (!data.hasRemaining()) {
            return;
        }
        if (isClosing()) {
            data.position(data.limit());
            return;
        }
        if (isOwnedByCurrentThread()) {
            writeOwned(data);
            return;
        }
        ByteBuffer copy = ByteBuffer.allocate(data.remaining()).put(data);
        copy.flip();
        foreignRequests().add(copy);
        requestRun();
    }

    private void writeOwned(ByteBuffer data) {
        if (this.writeQueue == null) {
            int sent;
            try {
                sent = this.group.sockets.send(this.handle, data);
            }
            catch (NativeIoException ex) {
                data.position(data.limit());
                failed(ex);
                return;
            }
            if (sent > 0) {
                this.listener.observer.sent(sent);
                touch();
            }
            if (!data.hasRemaining()) {
                return;
            }
            this.writeQueue = new WriteQueue();
        }
        this.writeQueue.add(data);
        this.writeBlocked = true;
        this.pendingBytes = this.writeQueue.bytes();
    }

    private void flush() {
        WriteQueue queue = this.writeQueue;
        ByteBuffer head;
        while ((head = queue.head()) != null) {
            int sent;
            try {
                sent = this.group.sockets.send(this.handle, head);
            }
            catch (NativeIoException ex) {
                failed(ex);
                return;
            }
            if (sent == NativeSockets.WOULD_BLOCK) {
                break;
            }
            this.listener.observer.sent(sent);
            touch();
            queue.sent(sent);
        }
        this.pendingBytes = queue.bytes();
        if (queue.isEmpty()) {
            this.writeQueue = null;
            if (this.writeBlocked) {
                this.writeBlocked = false;
                call(WRITABLE, null, null);
            }
        }
    }

    private void takeForeignRequests() {
        Queue<Object> requests = this.foreignRequests;
        if (requests == null) {
            return;
        }
        Object request;
        while ((request = requests.poll()) != null) {
            if (request == SHUTDOWN_OUTPUT) {
                this.outputShutdownRequested = true;
            }
            else if (this.writeQueue == null) {
                writeOwned((ByteBuffer) request);
            }
            else {
                this.writeQueue.addOwned((ByteBuffer) request);
                this.writeBlocked = true;
                this.pendingBytes = this.writeQueue.bytes();
            }
        }
    }

    private Queue<Object> foreignRequests() {
        Queue<Object> requests = this.foreignRequests;
        if (requests == null) {
            synchronized (this) {
                requests = this.foreignRequests;
                if (requests == null) {
                    requests = new ConcurrentLinkedQueue<>();
                    this.foreignRequests = requests;
                }
            }
        }
        return requests;
    }

    @Override
    public long pendingWriteBytes() {
        long pending = this.pendingBytes;
        Queue<Object> requests = this.foreignRequests;
        if (requests != null) {
            for (Object request : requests) {
                if (request instanceof ByteBuffer buffer) {
                    pending += buffer.remaining();
                }
            }
        }
        return pending;
    }

    @Override
    public void shutdownOutput() {
        if (isOwnedByCurrentThread()) {
            this.outputShutdownRequested = true;
            return;
        }
        foreignRequests().add(SHUTDOWN_OUTPUT);
        requestRun();
    }

    private void shutOutput() {
        this.outputShut = true;
        try {
            this.group.sockets.shutdown(this.handle, false, true);
        }
        catch (NativeIoException ex) {
            failed(ex);
        }
    }

    @Override
    public void close() {
        requestClose(false);
    }

    @Override
    public boolean isOpen() {
        return !isClosing();
    }

    // ---- failures and callbacks ------------------------------------------------------------

    private NativeIoException pendingError() {
        try {
            return this.group.sockets.takeError(this.handle);
        }
        catch (NativeIoException ex) {
            return ex;
        }
    }

    private void failed(NativeIoException error) {
        if (!isAborting()) {
            requestClose(true);
            call(ERROR, null, error);
        }
    }

    private void call(int callback, ByteBuffer data, Throwable error) {
        ConnectionHandler handler = this.listener.settings.connectionHandler();
        ListenerObserver observer = this.listener.observer;
        boolean timed = observer.timesHandlers();
        long start = timed ? System.nanoTime() : 0;
        boolean failed = false;
        try {
            switch (callback) {
                case OPEN -> handler.onOpen(this);
                case DATA -> handler.onData(this, data);
                case WRITABLE -> handler.onWritable(this);
                case HANGUP -> handler.onHangup(this);
                case ERROR -> handler.onError(this, error);
                default -> handler.onClose(this);
            }
        }
        catch (Throwable ex) {
            failed = true;
            if (callback != CLOSE) {
                requestClose(true);
            }
            this.listener.handlerFailed(this, (callback == CLOSE) ? "the connection was already closed" : "closing the connection", ex);
        }
        observer.handled(timed ? System.nanoTime() - start : 0, failed);
    }

    // ---- idle timeout ------------------------------------------------------------------------

    private void touch() {
        if (this.listener.idleTimeoutNanos > 0) {
            this.lastActivity = System.nanoTime();
        }
    }

    /** @param now the current {@link System#nanoTime()}; closes the connection when idle too long */
    void checkIdle(long now) {
        long idle = now - this.lastActivity;
        long limit = this.listener.idleTimeoutNanos;
        if (limit > 0 && idle > limit) {
            requestClose(idle > 2 * limit && isClosing());
        }
    }

    // ---- what handlers see -------------------------------------------------------------------

    @Override
    public long id() {
        return this.id;
    }

    @Override
    public String listenerName() {
        return this.listener.settings.name();
    }

    @Override
    public InetSocketAddress localAddress() {
        InetSocketAddress address = this.localAddress;
        if (address == null) {
            address = address(true);
            this.localAddress = address;
        }
        return address;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        InetSocketAddress address = this.remoteAddress;
        if (address == null) {
            address = address(false);
            this.remoteAddress = address;
        }
        return address;
    }

    private InetSocketAddress address(boolean local) {
        if ((state() & FINISHED) != 0) {
            throw new IllegalStateException(this + " is closed");
        }
        try {
            return local ? this.group.sockets.localAddress(this.handle) : this.group.sockets.remoteAddress(this.handle);
        }
        catch (NativeIoException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public Map<String, Object> attributes() {
        Map<String, Object> map = this.attributes;
        if (map == null) {
            synchronized (this) {
                map = this.attributes;
                if (map == null) {
                    map = new ConcurrentHashMap<>();
                    this.attributes = map;
                }
            }
        }
        return map;
    }

    @Override
    public void attach(Object attachment) {
        this.attachment = attachment;
    }

    @Override
    public Object attachment() {
        return this.attachment;
    }

    @Override
    public String toString() {
        InetSocketAddress remote = this.remoteAddress;
        return "connection " + this.id + " of listener '" + this.listener.settings.name() + "'"
                + ((remote != null) ? " from " + remote : "");
    }
}
