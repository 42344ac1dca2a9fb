package dev.sockstate.server;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** What one listener's sockets share at run time: settings, handler, observer and counts. */
final class ListenerRuntime implements ServerObserver.ActiveCounts {

    private static final System.Logger logger = System.getLogger(ListenerRuntime.class.getName());

    final ListenerSettings settings;

    final PortGroup group;

    final ServerScheduler scheduler;

    final AtomicInteger connections = new AtomicInteger();

    final LongAdder accepted = new LongAdder();

    final LongAdder rejected = new LongAdder();

    final LongAdder handlerErrors = new LongAdder();

    final long idleTimeoutNanos;

    final AtomicLong connectionIds;

    ListenerObserver observer = ListenerObserver.NONE;

    volatile InetSocketAddress boundAddress;

    ListenerRuntime(ListenerSettings settings, PortGroup group, ServerScheduler scheduler, AtomicLong connectionIds) {
        this.settings = settings;
        this.group = group;
        this.scheduler = scheduler;
        this.connectionIds = connectionIds;
        this.idleTimeoutNanos = (settings.idleTimeout() != null) ? settings.idleTimeout().toNanos() : 0;
    }

    @Override
    public int connections() {
        return this.connections.get();
    }

    @Override
    public int registrations() {
        return this.connections.get() + 1;
    }

    /**
     * A handler threw: logged once with the listener's name and counted.
     * @param what the socket it concerned
     * @param consequence what the runtime does about it
     * @param failure what it threw
     */
    void handlerFailed(Object what, String consequence, Throwable failure) {
        this.handlerErrors.increment();
        logger.log(Level.ERROR, "Handler of listener '" + this.settings.name() + "' failed on " + what + "; " + consequence,
                failure);
    }
}
