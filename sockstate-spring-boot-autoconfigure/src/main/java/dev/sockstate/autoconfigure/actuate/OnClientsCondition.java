package dev.sockstate.autoconfigure.actuate;

import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when a client is configured under {@code sockstate.clients}. */
class OnClientsCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        ConditionMessage.Builder message = ConditionMessage.forCondition("socket clients");
        Map<String, Object> clients = Binder.get(context.getEnvironment())
                .bind("sockstate.clients", Bindable.mapOf(String.class, Object.class)).orElse(Map.of());
        return clients.isEmpty() ? ConditionOutcome.noMatch(message.because("no client is configured under sockstate.clients"))
                : ConditionOutcome.match(message.found("client", "clients").items(clients.keySet()));
    }
}
