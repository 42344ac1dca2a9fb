package dev.sockstate.autoconfigure.test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;

/** Turns {@link EphemeralListenerPorts} on a test class into port {@code 0} for every listener. */
final class EphemeralListenerPortsContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        return TestContextAnnotationUtils.hasAnnotation(testClass, EphemeralListenerPorts.class) ? new EphemeralPorts() : null;
    }

    /**
     * Puts a property source in front of all others once the context's own are in place (before the
     * bean factory is processed, so after every other customizer and initializer): port {@code 0}
     * for each listener the environment configures.
     */
    static final class EphemeralPorts implements ContextCustomizer {

        static final String SOURCE = "sockstate-ephemeral-listener-ports";

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
            context.addBeanFactoryPostProcessor((beanFactory) -> ephemeral(context.getEnvironment()));
        }

        private static void ephemeral(ConfigurableEnvironment environment) {
            Map<String, Object> ports = new LinkedHashMap<>();
            // Only the names: the listeners' values are bound (and refused, if wrong) by the properties themselves.
            ListenerNames.keysUnder(environment, "sockstate.listeners").forEach((key) -> ports.put("sockstate.listeners" + key + ".port", 0));
            environment.getPropertySources().addFirst(new MapPropertySource(SOURCE, ports));
        }

        @Override
        public boolean equals(Object other) {
            return other != null && other.getClass() == getClass();
        }

        @Override
        public int hashCode() {
            return getClass().hashCode();
        }
    }
}
