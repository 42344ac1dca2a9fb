package dev.sockstate.server.engine;

import dev.sockstate.port.DatagramBatch;
import dev.sockstate.port.Events;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.OutgoingDatagrams;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.server.Coalescing;
import dev.sockstate.server.DatagramEndpoint;
import dev.sockstate.server.InvalidMessageException;
import dev.sockstate.server.engine.turn.Runner;
import dev.sockstate.server.engine.turn.SocketHome;
import dev.sockstate.server.engine.turn.SocketTurn;
import dev.sockstate.server.observer.ListenerObserver;
import java.lang.System.Logger.Level;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * A UDP listener's socket. On a notification it receives datagrams until the socket would block
 * (as an edge trigger requires) or a per-turn budget is spent, as many a call as the backend takes
 * (the listener's receive batch), handing each to the handler with its sender.
 */
final class UdpSocket extends SocketTurn implements DatagramEndpoint {

    private static final System.Logger logger = System.getLogger(UdpSocket.class.getName());

    private static final int LEVEL_BUDGET = 64;

    private static final int EDGE_BUDGET = 1024;

    /** The most replies one send call takes. */
    private static final int OUTGOING_BATCH = 64;

    /** The most segments one segmented send takes: Linux's {@code UDP_MAX_SEGMENTS}. */
    private static final int MAX_SEGMENTS = 64;

    /** The most bytes one segmented send takes, within what one IPv4 or IPv6 datagram carries before it is cut. */
    private static final int MAX_SEGMENTED_BYTES = 65_000;

    /** The room for a datagram the system may coalesce: what one UDP datagram carries. */
    private static final int COALESCED_ROOM = 64 * 1024;

    private final Listener listener;

    /** Where the socket receives, made on its first receive: only the turn that holds the socket touches it. */
    private @Nullable DatagramBatch batch;

    /**
     * Where replies made on the turn's thread gather to leave together, where the backend sends many in one call,
     * and where segments leave with their size; {@code null} where each datagram leaves by a call of its own.
     */
    private @Nullable OutgoingDatagrams outgoing;

    /** Whether {@link #outgoing} was asked of the backend. */
    private boolean outgoingAsked;

    /** The thread of the turn under way, {@code null} between turns: only it gathers its replies. */
    private @Nullable Thread turnThread;

    /** The index in {@link #batch} of the datagram the handler is called with, -1 between calls. */
    private int delivering = -1;

    /**
     * Whether the handler calls of the receive at hand are timed together (the observer keeps sums
     * only and the calls run on the turn's thread): two clock readings a receive instead of two a call.
     */
    private boolean summing;

    /** The calls timed together since {@link #sumStart}, none failed. */
    private int summedCalls;

    /** Where the sum at hand started: the receive's handling, or the end of a call that failed in it. */
    private long sumStart;

    /** The receive-queue overflows the system last reported, -1 before any. */
    private long overflows = -1;

    /** Whether the system coalesces the datagrams the socket receives (UDP_GRO taken). */
    private final boolean coalesced;

    /** The segment size of the coalesced datagram being handed over whole, 0 between calls and for a datagram received alone. */
    private int deliveringSegment;

    /** Whether the system was found to cut segmented sends (UDP_SEGMENT), once asked. */
    private boolean segmentOffload;

    /** Whether {@link #segmentOffload} was asked. */
    private boolean segmentOffloadAsked;

    /**
     * @param listener its listener
     * @param home where it is served: a port of the listener's group (its worker's own, with receive per worker)
     * @param handle the socket, open
     * @param coalesce whether to ask the system to coalesce the datagrams it receives (UDP_GRO), which the
     * binder found it takes
     */
    UdpSocket(Listener listener, SocketHome home, long handle, boolean coalesce) {
        super(home, handle, listener.profile.trigger, true);
        this.listener = listener;
        boolean coalesced = false;
        if (coalesce) {
            try {
                this.sockets.setOption(handle, NativeSocketOption.RECEIVE_COALESCED, 1);
                coalesced = true;
            }
            catch (NativeIoException ex) {
                logger.log(Level.DEBUG, "Listener '" + listener.name() + "' receives each datagram alone: the system refused to coalesce them", ex);
            }
        }
        this.coalesced = coalesced;
        if (this.sockets.unsupported(NativeSocketOption.RECEIVE_QUEUE_OVERFLOWS, 1) == null) {
            try {
                this.sockets.setOption(handle, NativeSocketOption.RECEIVE_QUEUE_OVERFLOWS, 1);
            }
            catch (NativeIoException ex) {
                logger.log(Level.DEBUG, "Listener '" + listener.name() + "' cannot count the datagrams its full buffer drops", ex);
            }
        }
    }

    @Override
    protected boolean handle(Runner runner, int events) {
        if (isClosing() && !isDraining()) {
            return true;
        }
        if (isDraining()) {
            events = Events.IN;
        }
        if ((events & Events.ERR) != 0) {
            try {
                this.sockets.takeError(this.handle);
            }
            catch (NativeIoException ex) {
                // an ICMP error for an earlier datagram: nothing to do
            }
        }
        if (events != 0 && (events & Events.IN) == 0) {
            return true;
        }
        this.turnThread = Thread.currentThread();
        try {
            receive(runner);
        }
        finally {
            this.delivering = -1;
            this.turnThread = null;
            if (this.outgoing != null && this.outgoing.size() > 0) {
                sendGathered();
            }
        }
        return true;
    }

    /** Receives until the socket would block or the turn's budget is spent, the replies of each batch sent together. */
    private void receive(Runner runner) {
        NativeSockets sockets = this.sockets;
        DatagramBatch batch = batch();
        boolean edge = this.trigger.isEdge();
        int budget = edge ? EDGE_BUDGET : LEVEL_BUDGET;
        boolean split = this.coalesced && this.listener.profile.settings.coalescing() == Coalescing.SEGMENTS;
        for (int taken = 0; taken < budget; ) {
            int count;
            try {
                count = sockets.receiveBatch(this.handle, batch);
            }
            catch (NativeIoException ex) {
                if (ex.error() == NativeError.CONNECTION_REFUSED || ex.error() == NativeError.CONNECTION_RESET) {
                    taken++;
                    continue;
                }
                logger.log(Level.WARNING, "Listener '" + this.listener.name() + "' could not receive", ex);
                return;
            }
            if (count == NativeSockets.WOULD_BLOCK) {
                return;
            }
            ListenerObserver observer = this.observer;
            int datagrams = this.coalesced ? datagramsIn(batch, count) : count;
            observer.receivedDatagrams(datagrams);
            long overflows = batch.overflows();
            if (overflows >= 0 && overflows != this.overflows) {
                // The system's count is 32 bits, and wraps.
                observer.datagramsOverflowed((overflows - Math.max(this.overflows, 0)) & 0xFFFF_FFFFL);
                this.overflows = overflows;
            }
            startSum(runner, observer);
            try {
                deliverAll(runner, batch, count, split);
            }
            finally {
                endSum(observer);
            }
            this.delivering = -1;
            if (this.outgoing != null && this.outgoing.size() > 0) {
                sendGathered();
            }
            taken += datagrams;
        }
        if (edge) {
            postRun();
        }
    }

    /** Hands the datagrams of one receive to the handler, each segment of a coalesced one alone when the listener splits them. */
    private void deliverAll(Runner runner, DatagramBatch batch, int count, boolean split) {
        ListenerObserver observer = this.observer;
        for (int i = 0; i < count; i++) {
            ByteBuffer datagram = batch.datagram(i);
            this.delivering = i;
            int segment = batch.segmentSize(i);
            if (split && segment > 0 && datagram.remaining() > segment) {
                // Each segment in turn, through the same view of the coalesced datagram: nothing allocated.
                int end = datagram.limit();
                for (int from = 0; from < end; from += segment) {
                    datagram.limit(Math.min(from + segment, end)).position(from);
                    observer.received(datagram.remaining());
                    deliver(runner, datagram, batch.sender(i));
                }
                continue;
            }
            // (Set for a listener that takes coalesced datagrams whole only: split, a lone one is a datagram like any.)
            this.deliveringSegment = split ? 0 : segment;
            observer.received(datagram.remaining());
            deliver(runner, datagram, batch.sender(i));
            this.deliveringSegment = 0;
        }
    }

    /**
     * Starts timing a receive's handler calls together, when the observer keeps sums only and the
     * calls run here (not on the handler executor).
     */
    private void startSum(Runner runner, ListenerObserver observer) {
        this.summing = observer.timesHandlers() && observer.sumsHandlerTimes() && handlerExecutor(runner) == null;
        if (this.summing) {
            this.summedCalls = 0;
            this.sumStart = System.nanoTime();
        }
    }

    /** Reports the calls timed together since the receive's handling began or the last failure, if any. */
    private void endSum(ListenerObserver observer) {
        if (this.summing) {
            this.summing = false;
            if (this.summedCalls > 0) {
                observer.handled(this.summedCalls, System.nanoTime() - this.sumStart);
            }
        }
    }

    /**
     * Sends the replies gathered in this turn in as few calls as the backend allows; one the socket does not
     * take (its buffer full), or that fails (its target unreachable), is dropped and counted, as UDP allows.
     */
    private void sendGathered() {
        OutgoingDatagrams outgoing = this.outgoing;
        ListenerObserver observer = this.observer;
        int size = outgoing.size();
        int from = 0;
        try {
            while (from < size) {
                int sent;
                try {
                    sent = this.sockets.sendBatch(this.handle, outgoing, from);
                }
                catch (NativeIoException ex) {
                    logger.log(Level.DEBUG, "Listener '" + this.listener.name() + "' could not send to " + outgoing.target(from), ex);
                    observer.datagramDropped();
                    from++;
                    continue;
                }
                if (sent == NativeSockets.WOULD_BLOCK) {
                    for (; from < size; from++) {
                        observer.datagramDropped();
                    }
                    break;
                }
                for (int i = from; i < from + sent; i++) {
                    observer.sent(outgoing.length(i));
                }
                observer.sentDatagrams(sent);
                from += sent;
            }
        }
        finally {
            // Never sent twice, whatever failed.
            outgoing.clear();
        }
    }

    /**
     * @return where the turn's replies gather (where the backend sends many in one call) and its segments leave with
     * their size, made on the first; {@code null} where the backend has no such batch (each datagram a call of its own)
     */
    private @Nullable OutgoingDatagrams outgoing() {
        if (!this.outgoingAsked) {
            this.outgoingAsked = true;
            this.outgoing = this.sockets.outgoingDatagrams(OUTGOING_BATCH);
        }
        return this.outgoing;
    }

    /** @return the datagrams a receive took, a coalesced datagram counted as its segments */
    private static int datagramsIn(DatagramBatch batch, int count) {
        int datagrams = count;
        for (int i = 0; i < count; i++) {
            int segment = batch.segmentSize(i);
            if (segment > 0) {
                datagrams += (batch.datagram(i).remaining() - 1) / segment;
            }
        }
        return datagrams;
    }

    /** @return the socket's batch, made on its first receive */
    private DatagramBatch batch() {
        DatagramBatch batch = this.batch;
        if (batch == null) {
            ConnectionProfile profile = this.listener.profile;
            batch = this.sockets.datagramBatch(profile.settings.receiveBatch(), this.coalesced ? COALESCED_ROOM : profile.datagramRoom(),
                    this.coalesced);
            this.batch = batch;
        }
        return batch;
    }

    /** @return the executor the handler's calls go to from this runner, {@code null} when they are made here (off the workers, always) */
    private @Nullable Executor handlerExecutor(Runner runner) {
        return runner.isWorker() ? this.listener.profile.settings.connection().handlerExecutor() : null;
    }

    private void deliver(Runner runner, ByteBuffer datagram, PeerAddress sender) {
        Executor executor = handlerExecutor(runner);
        if (executor != null) {
            ByteBuffer copy = ByteBuffer.allocate(datagram.remaining()).put(datagram);
            copy.flip();
            PeerAddress from = PeerAddress.of(sender.toSocketAddress());
            if (!this.listener.state.admitDatagram(this.listener.profile.settings.maxDatagramsInFlight())) {
                this.listener.state.executorRefused("a datagram from " + from, "dropping it", new RejectedExecutionException(
                        this.listener.profile.settings.maxDatagramsInFlight() + " datagrams already wait for the handler executor"));
                return;
            }
            try {
                executor.execute(() -> {
                    try {
                        call(copy, from);
                    }
                    finally {
                        this.listener.state.datagramHandled();
                    }
                });
            }
            catch (RejectedExecutionException ex) {
                this.listener.state.datagramHandled();
                this.listener.state.executorRefused("a datagram from " + from, "dropping it", ex);
            }
            return;
        }
        call(datagram, sender);
    }

    private void call(ByteBuffer datagram, PeerAddress sender) {
        ListenerObserver observer = this.observer;
        // A call on another thread than the receive's (the handler executor's) is timed alone.
        boolean summed = this.summing && Thread.currentThread() == this.turnThread;
        boolean timed = !summed && observer.timesHandlers();
        long start = timed ? System.nanoTime() : 0;
        boolean failed = false;
        try {
            this.listener.profile.settings.datagramHandler().onDatagram(this, datagram, sender);
        }
        catch (InvalidMessageException ex) {
            failed = true;
            this.listener.state.frameRejected("a datagram from " + sender, "dropping", ex);
        }
        catch (Throwable ex) {
            failed = true;
            this.listener.state.handlerFailed("a datagram from " + sender, "the listener goes on", ex);
        }
        if (!summed) {
            observer.handled(timed ? System.nanoTime() - start : 0, failed);
        }
        else if (failed) {
            // Taken out of the sum, with the time of the receive's calls so far; the sum goes on from now.
            long now = System.nanoTime();
            observer.handled(now - this.sumStart, true);
            this.sumStart = now;
        }
        else {
            this.summedCalls++;
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * A datagram sent on the worker, in the handler's call, is gathered with the other replies of the
     * datagrams received in the same call where the backend sends many at once ({@code sendmmsg} on
     * epoll): it leaves, as a copy, once the handler calls for those datagrams have returned, and this
     * says it was taken; one the socket then refuses is dropped and counted.
     */
    @Override
    public boolean send(ByteBuffer data, PeerAddress target) {
        if (Thread.currentThread() == this.turnThread && this.sockets.sendsManyInOneCall()) {
            OutgoingDatagrams outgoing = outgoing();
            if (outgoing != null) {
                if (outgoing.add(data, target)) {
                    return true;
                }
                sendGathered();
                if (outgoing.add(data, target)) {
                    return true;
                }
            }
        }
        try {
            // The datagram being handled goes out from where it was received; a heap buffer through native memory
            // lent for this call only.
            DatagramBatch batch = this.batch;
            int index = this.delivering;
            int sent = (index >= 0 && batch != null && data == batch.datagram(index))
                    ? this.sockets.sendTo(this.handle, batch.nativeDatagram(index), target)
                    : this.sockets.sendTo(this.handle, data, target);
            if (sent >= 0) {
                this.observer.sent(sent);
                this.observer.sentDatagrams(1);
                return true;
            }
        }
        catch (NativeIoException ex) {
            logger.log(Level.DEBUG, "Listener '" + this.listener.name() + "' could not send to " + target, ex);
        }
        this.observer.datagramDropped();
        return false;
    }

    @Override
    public boolean sendSegments(ByteBuffer data, int segmentSize, PeerAddress target) {
        if (segmentSize < 1 || segmentSize > MAX_SEGMENTED_BYTES) {
            throw new IllegalArgumentException("A segment of " + segmentSize + " bytes; segments are 1 to " + MAX_SEGMENTED_BYTES + " bytes");
        }
        if (data.remaining() <= segmentSize) {
            return send(data, target);
        }
        // A system that cuts no segments never needs the send batch for them: each segment is sent as send sends a
        // datagram (gathered with the replies only where one call sends many, in the batch those make).
        OutgoingDatagrams outgoing = (Thread.currentThread() == this.turnThread && offloadsSegments()) ? outgoing() : null;
        if (outgoing != null) {
            if (outgoing.size() > 0) {
                // The replies gathered before the segments leave before them.
                sendGathered();
            }
            return sendSegmented(outgoing, data, segmentSize, target);
        }
        return sendEachSegment(data, segmentSize, target);
    }

    /** Sends each segment as {@link #send(ByteBuffer, PeerAddress)} sends a datagram: gathered on the turn's thread where replies are. */
    private boolean sendEachSegment(ByteBuffer data, int segmentSize, PeerAddress target) {
        boolean all = true;
        int end = data.limit();
        try {
            while (data.position() < end) {
                int next = Math.min(data.position() + segmentSize, end);
                data.limit(next);
                all &= send(data, target);
                data.limit(end).position(next);
            }
        }
        finally {
            data.limit(end);
        }
        return all;
    }

    /**
     * Sends data as segments the system cuts, {@value #MAX_SEGMENTS} at most a call, each call's segment size
     * given with its data (UDP_SEGMENT as a control message: nothing is set on the socket, which other
     * threads may send on meanwhile). A call the system refuses (a route whose MTU is below the segment
     * size, a device that cannot checksum what it cuts) is sent again a segment a call, as are the calls
     * after it: the peer receives the same datagrams either way.
     */
    private boolean sendSegmented(OutgoingDatagrams outgoing, ByteBuffer data, int segmentSize, PeerAddress target) {
        ListenerObserver observer = this.observer;
        int chunk = Math.max(1, Math.min(MAX_SEGMENTS, MAX_SEGMENTED_BYTES / segmentSize)) * segmentSize;
        int end = data.limit();
        boolean all = true;
        try {
            while (data.position() < end) {
                int start = data.position();
                int next = Math.min(start + chunk, end);
                int count = (next - start + segmentSize - 1) / segmentSize;
                data.limit(next);
                outgoing.add(data, target, segmentSize);
                int sent;
                try {
                    sent = this.sockets.sendBatch(this.handle, outgoing, 0);
                }
                catch (NativeIoException ex) {
                    if (this.listener.state.firstTime("segments refused")) {
                        logger.log(Level.INFO, "Listener '" + this.listener.name() + "' sends segments of " + segmentSize + " bytes to "
                                + target + " a segment a call: the system refused to cut them (" + ex.getMessage() + ")");
                    }
                    // This call's data and the rest, once the batch is empty again: they gather in it.
                    outgoing.clear();
                    data.limit(end).position(start);
                    return sendEachSegment(data, segmentSize, target) && all;
                }
                outgoing.clear();
                if (sent > 0) {
                    observer.sent(next - start);
                    observer.sentDatagrams(count);
                }
                else {
                    all = false;
                    for (int i = 0; i < count; i++) {
                        observer.datagramDropped();
                    }
                }
                data.limit(end).position(next);
            }
        }
        catch (RuntimeException | Error ex) {
            // Never sent twice, whatever failed.
            outgoing.clear();
            throw ex;
        }
        finally {
            data.limit(end);
        }
        return all;
    }

    /** @return whether the backend and the system cut segmented sends, asked once; where not, said once for the listener */
    private boolean offloadsSegments() {
        if (!this.segmentOffloadAsked) {
            this.segmentOffloadAsked = true;
            String why = this.sockets.unsupported(NativeSocketOption.SEGMENT_SIZE, 1);
            if (why == null) {
                try {
                    // Off, as it is: only asks whether the system has the option.
                    this.sockets.setOption(this.handle, NativeSocketOption.SEGMENT_SIZE, 0);
                }
                catch (NativeIoException ex) {
                    why = "the system refused to cut them (" + ex.getMessage() + ")";
                }
            }
            this.segmentOffload = why == null;
            if (why != null && this.listener.state.firstTime("segments")) {
                logger.log(Level.INFO, "Listener '" + this.listener.name() + "' sends each segment in a call of its own: " + why);
            }
        }
        return this.segmentOffload;
    }

    @Override
    public int segmentSize() {
        return (Thread.currentThread() == this.turnThread) ? this.deliveringSegment : 0;
    }

    @Override
    public boolean send(Object message, PeerAddress target) {
        return send(this.listener.profile.writeMessage(message), target);
    }

    @Override
    public <T> T readMessage(ByteBuffer datagram, Class<T> type) throws InvalidMessageException {
        return this.listener.profile.readMessage(datagram, type);
    }

    @Override
    public String listenerName() {
        return this.listener.name();
    }

    @Override
    public SocketAddress localAddress() {
        return this.listener.state.boundAddress();
    }

    @Override
    protected int nextFilter() {
        return Events.IN;
    }


    @Override
    protected void finish() {
        closeSocket();
        this.listener.state.finished(this);
    }

    @Override
    public String toString() {
        return "socket of UDP listener '" + this.listener.name() + "'";
    }
}
