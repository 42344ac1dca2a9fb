package dev.sockstate.server.engine;

import dev.sockstate.port.Events;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.server.DatagramEndpoint;
import dev.sockstate.server.InvalidMessageException;
import dev.sockstate.server.engine.turn.Runner;
import dev.sockstate.server.engine.turn.SocketTurn;
import dev.sockstate.server.observer.ListenerObserver;
import java.lang.System.Logger.Level;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A UDP listener's socket. On a notification it receives datagrams until the socket would block
 * (as an edge trigger requires) or a per-turn budget is spent, handing each to the handler with its
 * sender.
 */
final class UdpSocket extends SocketTurn implements DatagramEndpoint {

    private static final System.Logger logger = System.getLogger(UdpSocket.class.getName());

    private static final int LEVEL_BUDGET = 64;

    private static final int EDGE_BUDGET = 1024;

    private final Listener listener;

    /** Datagrams handed to the handler executor and not yet handled. */
    private final AtomicInteger inFlight = new AtomicInteger();

    UdpSocket(Listener listener, long handle) {
        super(listener.profile.home(), handle, listener.profile.trigger, true);
        this.listener = listener;
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
        NativeSockets sockets = this.sockets;
        NativeBuffer buffer = runner.readBuffer();
        PeerAddress sender = runner.peer();
        boolean edge = this.trigger.isEdge();
        int budget = edge ? EDGE_BUDGET : LEVEL_BUDGET;
        for (int i = 0; i < budget; i++) {
            ByteBuffer bytes = buffer.buffer();
            bytes.clear();
            int length;
            try {
                length = sockets.receiveFrom(this.handle, buffer, sender);
            }
            catch (NativeIoException ex) {
                if (ex.error() == NativeError.CONNECTION_REFUSED || ex.error() == NativeError.CONNECTION_RESET) {
                    continue;
                }
                logger.log(Level.WARNING, "Listener '" + this.listener.name() + "' could not receive", ex);
                return true;
            }
            if (length == NativeSockets.WOULD_BLOCK) {
                return true;
            }
            this.observer.received(length);
            bytes.flip();
            deliver(runner, bytes, sender);
        }
        if (edge) {
            postRun();
        }
        return true;
    }

    private void deliver(Runner runner, ByteBuffer datagram, PeerAddress sender) {
        Executor executor = this.listener.profile.settings.connection().handlerExecutor();
        if (executor != null && runner.isWorker()) {
            ByteBuffer copy = ByteBuffer.allocate(datagram.remaining()).put(datagram);
            copy.flip();
            PeerAddress from = PeerAddress.of(sender.toSocketAddress());
            if (this.inFlight.incrementAndGet() > this.listener.profile.settings.maxDatagramsInFlight()) {
                this.inFlight.decrementAndGet();
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
                        this.inFlight.decrementAndGet();
                    }
                });
            }
            catch (RejectedExecutionException ex) {
                this.inFlight.decrementAndGet();
                this.listener.state.executorRefused("a datagram from " + from, "dropping it", ex);
            }
            return;
        }
        call(datagram, sender);
    }

    private void call(ByteBuffer datagram, PeerAddress sender) {
        ListenerObserver observer = this.observer;
        boolean timed = observer.timesHandlers();
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
        observer.handled(timed ? System.nanoTime() - start : 0, failed);
    }

    @Override
    public boolean send(ByteBuffer data, PeerAddress target) {
        try {
            // A heap buffer goes out through native memory lent for this call only.
            int sent = this.sockets.sendTo(this.handle, data, target);
            if (sent >= 0) {
                this.observer.sent(sent);
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
