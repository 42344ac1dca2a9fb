package dev.sockstate.autoconfigure.diagnostics;

import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.server.ListenerBindException;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a listener that could not bind, naming the listener and the port (or its Unix domain
 * socket's path), as Spring Boot does for its web server.
 */
class ListenerBindFailureAnalyzer extends AbstractFailureAnalyzer<ListenerBindException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ListenerBindException cause) {
        String listener = cause.listener();
        if (cause.address() instanceof UnixDomainSocketAddress unix) {
            boolean unsupported = cause.getCause() instanceof NativeIoException failure && failure.error() == NativeError.NOT_SUPPORTED;
            return new FailureAnalysis("Listener '" + listener + "' failed to start: " + cause.getMessage(), unsupported
                    ? "This backend has no Unix domain sockets of that kind (the nio backend and Windows have no datagram ones):"
                            + " use the epoll backend (sockstate.backend), or set sockstate.listeners." + listener + ".protocol to tcp."
                    : "Check sockstate.listeners." + listener + ".address (unix:" + unix.getPath() + "): its directory must exist and"
                            + " be writable, and nothing but a socket no server answers at may be at that path.",
                    cause);
        }
        int port = ((InetSocketAddress) cause.address()).getPort();
        if (cause.isPortInUse()) {
            return new FailureAnalysis("Listener '" + listener + "' failed to start. Port " + port + " was already in use.",
                    "Identify and stop the process that's listening on port " + port + " or configure sockstate.listeners."
                            + listener + ".port to another port.",
                    cause);
        }
        return new FailureAnalysis("Listener '" + listener + "' failed to start: " + cause.getMessage(),
                "Check sockstate.listeners." + listener + ".address and .port: the address must belong to this machine,"
                        + " and ports below 1024 need privileges.",
                cause);
    }
}
