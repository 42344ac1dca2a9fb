package dev.sockstate.autoconfigure.diagnostics;

import dev.sockstate.port.BackendUnavailableException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains why no socket notification backend can run here. */
class BackendUnavailableFailureAnalyzer extends AbstractFailureAnalyzer<BackendUnavailableException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, BackendUnavailableException cause) {
        return new FailureAnalysis("The socket servers could not start: " + cause.getMessage(),
                "Run on Linux (epoll) or on Windows build 20348 or later (winsock), and leave sockstate.backend at auto"
                        + " or name a backend that runs here; to start without the socket servers, set sockstate.enabled=false.",
                cause);
    }
}
