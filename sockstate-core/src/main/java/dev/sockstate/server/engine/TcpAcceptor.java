package dev.sockstate.server.engine;

import dev.sockstate.port.Events;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.admission.Refusal;
import dev.sockstate.server.engine.turn.Runner;
import dev.sockstate.server.engine.turn.SocketHome;
import dev.sockstate.server.engine.turn.SocketTurn;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * A listening TCP socket. On a notification it accepts every pending connection, up to a bound,
 * registers each and re-arms itself (level one-shot). One of a listener's sockets per worker, which
 * only its worker dequeues, stays registered level persistent, with no re-arm, and accepts what is
 * pending up to a smaller bound: its worker serves the connections it accepts, and a registration
 * that reports the socket again while more are pending lets them have their turns between. (Accepting
 * one a notification instead spares the accept that finds the backlog empty, but costs a dequeue a
 * connection, which measured dearer.) Out of descriptors, it stays disarmed for a short, growing
 * interval instead of spinning on a level-triggered listener that stays readable, then tries again.
 */
final class TcpAcceptor extends SocketTurn {

    private static final System.Logger logger = System.getLogger(TcpAcceptor.class.getName());

    /** Connections accepted per notification before the listener is re-armed and others get a turn. */
    static final int ACCEPTS_PER_NOTIFICATION = 256;

    /**
     * Connections a socket per worker accepts per notification, at most: its level-persistent
     * registration reports it again while connections are pending.
     */
    static final int ACCEPTS_PER_PERSISTENT_NOTIFICATION = 64;

    static final long BACKOFF_START_MILLIS = 5;

    static final long BACKOFF_MAX_MILLIS = 1000;

    private final Listener listener;

    /**
     * Where its connections are served: on its own port (accept per worker), or {@code null} for the
     * group's ports in turn.
     */
    private final @Nullable NotificationPort connectionsPort;

    /** Its number among its listener's listening sockets, from 1, or 0 for the only one. */
    private final int number;

    private boolean paused;

    /** Whether a graceful stop's drain met its bound with connections maybe still pending: the close waits. */
    private boolean drainPending;

    private long backoffMillis = BACKOFF_START_MILLIS;

    private volatile long backoffs;

    private final BoundedLog refusedOptions = new BoundedLog(logger);

    /** The options set on the listening socket, which accepted sockets should have inherited. */
    private final SocketOptionList inherited;

    /**
     * The options each accepted socket is set on its own: those the first accepted one did not inherit
     * (null until one tells; most often none, and then a connection needs no system call of its own).
     */
    private @Nullable SocketOptionList notInherited;

    /**
     * @param listener its listener
     * @param home where it is served
     * @param handle the listening socket
     * @param number its number among its listener's listening sockets, from 1, whose connections then
     * stay on its port; 0 for a listener's only one, whose connections go to the group's ports in turn
     * @param inherited the options set on the listening socket, which accepted sockets should have
     */
    TcpAcceptor(Listener listener, SocketHome home, long handle, int number, SocketOptionList inherited) {
        // One of a socket per worker is dequeued by its worker alone: it stays armed, with no re-arm after each round.
        super(home, handle, (number > 0) ? Trigger.LEVEL_PERSISTENT : Trigger.LEVEL_ONESHOT, true);
        this.listener = listener;
        this.number = number;
        this.connectionsPort = (number > 0) ? home.port() : null;
        this.inherited = inherited;
    }

    @Override
    protected boolean handle(Runner runner, int events) {
        if (isDraining()) {
            // A graceful shutdown: the connections the kernel already completed are served, not reset,
            // a bounded number a turn: the stop ends the drain by its deadline, which peers that keep
            // connecting must not outlast. An accept that found no descriptor pauses the drain, not ends
            // it: its back-off asks for the turn that goes on.
            this.paused = false;
            boolean more = acceptPending(runner, ACCEPTS_PER_NOTIFICATION);
            this.drainPending = more || this.paused;
            if (more) {
                yieldTurn(0);
            }
            return true;
        }
        if (isClosing()) {
            return true;
        }
        if (this.paused && events == 0) {
            this.paused = false;
            events = Events.IN;
        }
        if ((events & Events.IN) != 0) {
            acceptPending(runner, (this.number > 0) ? ACCEPTS_PER_PERSISTENT_NOTIFICATION : ACCEPTS_PER_NOTIFICATION);
        }
        return true;
    }

    /**
     * @param bound the most accepts tried
     * @return whether the bound was reached with connections maybe still pending
     */
    private boolean acceptPending(Runner runner, int bound) {
        NativeSockets sockets = this.sockets;
        ListenerSettings settings = this.listener.profile.settings;
        for (int i = 0; i < bound; i++) {
            if (isAborting()) {
                // A stop that gave up on draining: what is still queued is left to the close.
                return false;
            }
            long connection;
            try {
                connection = sockets.accept(this.handle);
            }
            catch (NativeIoException ex) {
                if (ex.error() == NativeError.TOO_MANY_OPEN_FILES || ex.error() == NativeError.NO_MEMORY) {
                    backOff(ex);
                    return false;
                }
                if (ex.error() == NativeError.CONNECTION_RESET || ex.error() == NativeError.INTERRUPTED) {
                    continue;
                }
                logger.log(Level.WARNING, "Listener '" + settings.name() + "' could not accept a connection", ex);
                return false;
            }
            if (connection == NativeSockets.NO_SOCKET) {
                this.backoffMillis = BACKOFF_START_MILLIS;
                return false;
            }
            if (!this.listener.state.admit()) {
                reject(connection, Refusal.MAX_CONNECTIONS, null);
                continue;
            }
            AdmissionControl.Source counted = null;
            InetSocketAddress peer = null;
            AdmissionControl admission = this.listener.profile.admission;
            if (admission != null) {
                long now = System.nanoTime();
                Refusal refusal = null;
                if (admission.rules().checksSources()) {
                    peer = peerOf(connection, settings);
                    if (peer != null) {
                        AdmissionControl.Verdict verdict = admission.admitSource(peer.getAddress(), now);
                        refusal = verdict.refusal();
                        counted = verdict.source();
                    }
                }
                // The listener's rate last: a source its own rules refuse takes none of the listener's tokens.
                if (refusal == null) {
                    refusal = admission.admitAtListener(now);
                    if (refusal != null && counted != null) {
                        admission.release(counted);
                        counted = null;
                    }
                }
                if (refusal != null) {
                    this.listener.state.connectionFinished();
                    reject(connection, refusal, (peer != null) ? peer.getAddress() : null);
                    continue;
                }
            }
            if (!this.inherited.isEmpty() && !configure(connection)) {
                this.listener.state.connectionFinished();
                release(admission, counted);
                continue;
            }
            TcpConnection accepted = new TcpConnection(this.listener.profile,
                    (this.connectionsPort != null) ? this.listener.profile.home(this.connectionsPort) : this.listener.profile.home(), connection);
            if (counted != null) {
                admission.hold(accepted, counted);
            }
            if (!this.listener.profile.enter(accepted)) {
                this.listener.state.connectionFinished();
                if (counted != null) {
                    admission.release(accepted);
                }
                reject(connection, Refusal.MAX_CONNECTIONS, null);
                continue;
            }
            this.listener.state.accepted();
            accepted.open(runner);
        }
        this.backoffMillis = BACKOFF_START_MILLIS;
        return true;
    }

    /**
     * Gives an accepted socket the options it did not inherit from the listening socket, as the first
     * accepted one showed (asked again of the next one when it could not tell).
     * @return false when one was refused: the socket is closed
     */
    private boolean configure(long connection) {
        NativeSockets sockets = this.sockets;
        SocketOptionList missing = this.notInherited;
        if (missing == null) {
            try {
                missing = this.inherited.notInheritedBy(sockets, connection);
                this.notInherited = missing;
            }
            catch (NativeIoException ex) {
                // Not known yet: this connection is set on its own, the next one is asked again.
                missing = this.inherited;
            }
        }
        if (missing.isEmpty()) {
            return true;
        }
        try {
            missing.applyTo(sockets, connection);
            return true;
        }
        catch (NativeIoException ex) {
            this.refusedOptions.warn("Listener '" + this.listener.settings().name() + "' could not set " + ex.call()
                    + " on an accepted connection, which is closed", ex);
            closeQuietly(connection);
            return false;
        }
    }

    private void reject(long connection, Refusal reason, @Nullable InetAddress source) {
        this.listener.state.rejected(reason, source);
        if (reason != Refusal.MAX_CONNECTIONS) {
            // Reset: a refused source leaves no TIME_WAIT behind (a flood of them would fill the kernel's table).
            try {
                this.sockets.setOption(connection, NativeSocketOption.LINGER, 0);
            }
            catch (NativeIoException ex) {
                // Closed all the same, with a FIN.
            }
        }
        closeQuietly(connection);
    }

    private static void release(@Nullable AdmissionControl admission, AdmissionControl.@Nullable Source counted) {
        if (admission != null && counted != null) {
            admission.release(counted);
        }
    }

    /**
     * @return the accepted socket's peer, whose address the admission's rules by source judge; {@code null}
     * where they wait for a trusted sender's PROXY protocol header to name the client (a Unix domain socket's
     * peer has no address), or where the peer left before it could be asked (its connection then ends at
     * its first read)
     */
    private @Nullable InetSocketAddress peerOf(long connection, ListenerSettings settings) {
        if (settings.isUnix()) {
            return null;
        }
        SocketAddress peer;
        try {
            peer = this.sockets.remoteAddress(connection);
        }
        catch (NativeIoException ex) {
            return null;
        }
        if (!(peer instanceof InetSocketAddress inet)) {
            return null;
        }
        return (settings.proxyProtocol() != null && settings.proxyProtocol().trusts(inet.getAddress())) ? null : inet;
    }

    private void closeQuietly(long connection) {
        try {
            this.sockets.close(connection);
        }
        catch (NativeIoException ex) {
            // released all the same
        }
    }

    private void backOff(NativeIoException cause) {
        this.paused = true;
        this.observer.acceptBackedOff();
        long delay = this.backoffMillis;
        this.backoffMillis = Math.min(delay * 2, BACKOFF_MAX_MILLIS);
        if (this.backoffs++ % 100 == 0) {
            logger.log(Level.WARNING, "Listener '" + this.listener.name() + "' cannot accept: " + cause.getMessage()
                    + "; pausing accepts for " + delay + " ms, and longer while it lasts");
        }
        if (!this.listener.profile.schedule(this::requestRun, delay)) {
            // No timer (the server stops): accepting resumes at once.
            this.paused = false;
            requestRun();
        }
    }

    @Override
    protected boolean readyToClose() {
        return isAborting() || !this.drainPending;
    }

    /**
     * A graceful stop's close: the connections the kernel completed between the drain's last accept
     * and now are accepted and served, one bounded round of them, instead of being reset as the
     * listening socket closes. (One completed in the instant between this round and the close is
     * still reset, as by any server that closes its listening socket: a balancer in front stops
     * connecting first when the server goes on serving a while after its readiness went down.)
     */
    @Override
    protected void lastTurn(Runner runner) {
        if (isDraining()) {
            acceptPending(runner, ACCEPTS_PER_NOTIFICATION);
        }
    }

    @Override
    protected int nextFilter() {
        return this.paused ? -1 : Events.IN;
    }


    @Override
    protected void finish() {
        closeSocket();
        this.listener.state.finished(this);
    }

    /** @return how often accepting paused for lack of descriptors */
    long backoffs() {
        return this.backoffs;
    }

    @Override
    public String toString() {
        return "listening socket of listener '" + this.listener.name() + "'" + ((this.number > 0) ? " on worker port " + this.number : "");
    }
}
