package dev.sockstate.server.engine;

import dev.sockstate.port.Events;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.server.engine.turn.Runner;
import dev.sockstate.server.engine.turn.SocketHome;
import java.nio.ByteBuffer;

/**
 * A client's connection: a {@link TcpConnection} that begins with its connect under way. The thread
 * that opened the socket lets it go, armed; its first turn ends the connect
 * ({@link #connected}): open from then on as an accepted connection is, or closed with the error
 * named. Its tie to its client (its requests owed replies, its place in the pool) is its
 * {@link ClientLink}, which its turn gives the work handed to it (requests to write, a timeout to
 * check), the end of its reads (the requests' times) and its end (the requests still owed fail). It
 * never pauses reading for its own queue: its reads are the backend's answers, which the backend stops
 * sending if they are not read (both would wait for each other), and which its handler pauses itself
 * when they go elsewhere ({@link #pauseReading()}).
 */
final class ClientConnection extends TcpConnection {

    /** Its tie to its client. */
    final ClientLink link;

    /** Whether the connect is under way; the owner. */
    private boolean connecting = true;

    /** @param link its tie to its client, whose connect is under way */
    ClientConnection(ConnectionProfile profile, SocketHome home, long handle, ClientLink link) {
        super(profile, home, handle);
        this.link = link;
    }

    @Override
    public boolean pausesForOwnWrites() {
        return false;
    }

    @Override
    boolean owesReplies() {
        return this.link.owed() > 0;
    }

    @Override
    boolean hasTurnWork() {
        return this.link.hasWork() || super.hasTurnWork();
    }

    @Override
    void runTurnWork() {
        if (this.link.hasWork()) {
            this.link.work(this);
        }
        super.runTurnWork();
    }

    @Override
    void turnEnds() {
        this.link.turnEnds(this);
    }

    @Override
    protected void finish() {
        this.link.finished(this);
        super.finish();
    }

    @Override
    boolean connecting() {
        return this.connecting;
    }

    @Override
    boolean connected(Runner runner, int events) {
        NativeIoException error = pendingError();
        if (error == null && (events & Events.OUT) == 0) {
            if ((events & (Events.ERR | Events.HANGUP)) == 0) {
                return true;
            }
            error = unnamedConnectError();
        }
        if (error != null) {
            closeFailed(error);
            return true;
        }
        this.connecting = false;
        if (!this.link.claimConnected()) {
            // The connect timed out first: the timer asked for the close, with its reason.
            requestClose(true);
            return true;
        }
        readPeerCredentials();
        return openHere(runner);
    }

    /**
     * @return why a connect the port reported as failed failed, when SO_ERROR reads 0 (as Windows may):
     * a read names it
     */
    private NativeIoException unnamedConnectError() {
        try {
            this.sockets.recv(this.handle, ByteBuffer.allocate(1));
        }
        catch (NativeIoException ex) {
            return ex;
        }
        return new NativeIoException("connect", NativeError.OTHER, 0, "The port reported the connect as failed, and neither"
                + " SO_ERROR nor a read named the error");
    }

    @Override
    public String connectedHost() {
        return this.link.host;
    }

    @Override
    public int connectedPort() {
        return this.link.target.getPort();
    }
}
