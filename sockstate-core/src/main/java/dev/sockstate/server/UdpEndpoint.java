package dev.sockstate.server;

import dev.sockstate.port.Events;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.Trigger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;

/**
 * A UDP listener's socket. On a notification it receives datagrams until the socket would block
 * (as an edge trigger requires) or a per-turn budget is spent, handing each to the handler with its
 * sender.
 */
final class UdpEndpoint extends Registration implements DatagramEndpoint {

    private static final System.Logger logger = System.getLogger(UdpEndpoint.class.getName());

    private static final int LEVEL_BUDGET = 64;

    private static final int EDGE_BUDGET = 1024;

    private final ListenerRuntime listener;

    private final ThreadLocal<NativeBuffer> sendBuffers;

    UdpEndpoint(ListenerRuntime listener, long handle) {
        super(listener.group, handle, true);
        this.listener = listener;
        this.sendBuffers = ThreadLocal.withInitial(() -> this.group.sockets.allocate(64 * 1024));
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
    boolean handle(Worker worker, int events) {
        if (isClosing() && !isDraining()) {
            return true;
        }
        if (isDraining()) {
            events = Events.IN;
        }
        if ((events & Events.ERR) != 0) {
            try {
                this.group.sockets.takeError(this.handle);
            }
            catch (NativeIoException ex) {
                // an ICMP error for an earlier datagram: nothing to do
            }
        }
        if (events != 0 && (events & Events.IN) == 0) {
            return true;
        }
        NativeSockets sockets = this.group.sockets;
        NativeBuffer buffer = (worker != null) ? worker.readBuffer : this.group.offWorkerBuffer();
        PeerAddress sender = (worker != null) ? worker.peer : PeerAddress.empty();
        boolean edge = trigger().isEdge();
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
                logger.log(Level.WARNING, "Listener '" + this.listener.settings.name() + "' could not receive", ex);
                return true;
            }
            if (length == NativeSockets.WOULD_BLOCK) {
                return true;
            }
            this.listener.observer.received(length);
            bytes.flip();
            deliver(worker, bytes, sender);
        }
        if (edge) {
            this.group.postRun(this);
        }
        return true;
    }

    private void deliver(Worker worker, ByteBuffer datagram, PeerAddress sender) {
        Executor executor = this.listener.settings.handlerExecutor();
        if (executor != null && worker != null) {
            ByteBuffer copy = ByteBuffer.allocate(datagram.remaining()).put(datagram);
            copy.flip();
            PeerAddress from = PeerAddress.of(sender.toSocketAddress());
            executor.execute(() -> call(copy, from));
            return;
        }
        call(datagram, sender);
    }

    private void call(ByteBuffer datagram, PeerAddress sender) {
        ListenerObserver observer = this.listener.observer;
        boolean timed = observer.timesHandlers();
        long start = timed ? System.nanoTime() : 0;
        boolean failed = false;
        try {
            this.listener.settings.datagramHandler().onDatagram(this, datagram, sender);
        }
        catch (Throwable ex) {
            failed = true;
            this.listener.handlerFailed("a datagram from " + sender, "the listener goes on", ex);
        }
        observer.handled(timed ? System.nanoTime() - start : 0, failed);
    }

    @Override
    public boolean send(ByteBuffer data, PeerAddress target) {
        NativeBuffer out = this.sendBuffers.get();
        ByteBuffer bytes = out.buffer();
        bytes.clear();
        if (data.remaining() > bytes.capacity()) {
            throw new IllegalArgumentException("A datagram of " + data.remaining() + " bytes exceeds the 65536 bytes UDP carries");
        }
        int start = data.position();
        bytes.put(data).flip();
        try {
            int sent = this.group.sockets.sendTo(this.handle, out, target);
            if (sent >= 0) {
                this.listener.observer.sent(sent);
                return true;
            }
        }
        catch (NativeIoException ex) {
            logger.log(Level.DEBUG, "Listener '" + this.listener.settings.name() + "' could not send to " + target, ex);
        }
        data.position(start);
        this.listener.observer.datagramDropped();
        return false;
    }

    @Override
    public String listenerName() {
        return this.listener.settings.name();
    }

    @Override
    public InetSocketAddress localAddress() {
        return this.listener.boundAddress;
    }

    @Override
    int nextFilter() {
        return Events.IN;
    }


    @Override
    public String toString() {
        return "socket of UDP listener '" + this.listener.settings.name() + "'";
    }
}
