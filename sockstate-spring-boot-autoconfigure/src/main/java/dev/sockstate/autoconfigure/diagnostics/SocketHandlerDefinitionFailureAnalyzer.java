package dev.sockstate.autoconfigure.diagnostics;

import dev.sockstate.spring.handler.SocketHandlerDefinitionException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains handler beans that do not fit the configured listeners. */
class SocketHandlerDefinitionFailureAnalyzer extends AbstractFailureAnalyzer<SocketHandlerDefinitionException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SocketHandlerDefinitionException cause) {
        return new FailureAnalysis(cause.getMessage() + ".", cause.action(), cause);
    }
}
