package dev.sockstate.server.engine.tls;

import javax.net.ssl.SSLSession;

/**
 * What the {@link TlsStage} needs of its connection, and nothing more: to say how its handshake ended, where a client's connection connects to, to stop the connection's reading while its engine's tasks run, and to know
 * whether what arrives is still wanted. The owner's thread only.
 */
public interface TlsHost {

    /** @param session the session, once the handshake succeeded */
    void handshakeSucceeded(SSLSession session);

    /**
     * @param hold whether the connection stops reading from its socket until released (the engine's
     * tasks run, and what would arrive meanwhile could only be held); released, it reads on
     */
    void holdInput(boolean hold);

    /** @return whether what arrives is still handled: not aborted, and not closing unless a graceful stop drains */
    boolean takesInput();

    /**
     * @return the host a client's connection connects to, as its address names it (a name, or a
     * literal address): the server name its TLS asks for and checks unless its settings name another;
     * {@code null} for an accepted connection
     */
    default String connectedHost() {
        return null;
    }

    /** @return the port a client's connection connects to; -1 for an accepted connection */
    default int connectedPort() {
        return -1;
    }
}
