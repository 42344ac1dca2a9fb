package dev.sockstate.autoconfigure;

import dev.sockstate.port.Backend;
import dev.sockstate.port.BackendUnavailableException;
import dev.sockstate.port.Backends;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when the configured backend runs on this system, so that the condition report says why
 * sockstate backed off on one that has none. When listeners are configured it matches anyway: the
 * user asked for servers, and start-up then fails with the backend's reason.
 */
class OnAvailableBackendCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        String name = context.getEnvironment().getProperty("sockstate.backend", Backends.AUTO);
        ConditionMessage.Builder message = ConditionMessage.forCondition("socket notification backend", name);
        try {
            Backend backend = Backends.select(name);
            return ConditionOutcome.match(message.found("backend").items(backend.name() + " (" + backend.availability().reason() + ")"));
        }
        catch (BackendUnavailableException | IllegalArgumentException | LinkageError ex) {
            boolean listenersConfigured = Binder.get(context.getEnvironment())
                    .bind("sockstate.listeners", Bindable.mapOf(String.class, Object.class)).map(Map::isEmpty).map((empty) -> !empty)
                    .orElse(false);
            if (listenersConfigured) {
                return ConditionOutcome.match(message.because("listeners are configured, although " + ex.getMessage()));
            }
            return ConditionOutcome.noMatch(message.because(ex.getMessage()));
        }
    }
}
