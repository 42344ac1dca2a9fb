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
 * named. Its tie to its client (its requests, its place in the pool) is its {@link ClientLink}.
 */
final class ClientConnection extends TcpConnection {

    /** Whether the connect is under way; the owner. */
    private boolean connecting = true;

    /** @param link its tie to its client, whose connect is under way */
    ClientConnection(ConnectionProfile profile, SocketHome home, long handle, ClientLink link) {
        super(profile, home, handle, link);
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
        if (!link().claimConnected()) {
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
        return link().host;
    }

    @Override
    public int connectedPort() {
        return link().target.getPort();
    }
}
