package dev.sockstate.autoconfigure;

import dev.sockstate.spring.handler.SocketHandler;
import java.util.Map;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when the application asks for a server: a listener is configured under
 * {@code sockstate.listeners}, a client under {@code sockstate.clients} (a gateway's outbound
 * connections run on the server's workers), or a {@link SocketHandler} bean is defined (which then fails start-up,
 * naming the listener it lacks). An application that has the starter only through a dependency
 * starts no server, no thread and no meter, as Spring Boot's RSocket server starts only when its
 * port is set.
 */
class OnListenersCondition extends SpringBootCondition implements ConfigurationCondition {

    /** Evaluated once the application's own beans are defined, so that its handlers are seen. */
    @Override
    public ConfigurationPhase getConfigurationPhase() {
        return ConfigurationPhase.REGISTER_BEAN;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        ConditionMessage.Builder message = ConditionMessage.forCondition("socket listeners");
        Map<String, Object> listeners = Binder.get(context.getEnvironment())
                .bind("sockstate.listeners", Bindable.mapOf(String.class, Object.class)).orElse(Map.of());
        if (!listeners.isEmpty()) {
            return ConditionOutcome.match(message.found("listener", "listeners").items(listeners.keySet()));
        }
        Map<String, Object> clients = Binder.get(context.getEnvironment())
                .bind("sockstate.clients", Bindable.mapOf(String.class, Object.class)).orElse(Map.of());
        if (!clients.isEmpty()) {
            return ConditionOutcome.match(message.found("client", "clients").items(clients.keySet()));
        }
        ConfigurableListableBeanFactory beans = context.getBeanFactory();
        String[] handlers = (beans != null) ? beans.getBeanNamesForAnnotation(SocketHandler.class) : new String[0];
        if (handlers.length > 0) {
            return ConditionOutcome.match(message.found("@SocketHandler bean", "@SocketHandler beans").items((Object[]) handlers));
        }
        return ConditionOutcome.noMatch(message.because("no listener is configured under sockstate.listeners, no client under"
                + " sockstate.clients, and no @SocketHandler bean is defined"));
    }
}
