package dev.sockstate.boot.test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * What every Spring test context of an application on sockstate gets: {@link LocalListenerPort}
 * resolved wherever {@code @Value} is, and each listener on an ephemeral port (as if its
 * {@code sockstate.listeners.<name>.port} were {@code 0}, whatever the configuration says), so that
 * tests run beside a running application, beside each other and in parallel forks, as Spring Boot's
 * web server takes no configured port in a test. A test that wants the configured ports says so as it
 * does for the web server: {@code @SpringBootTest(webEnvironment = DEFINED_PORT)}.
 */
final class ListenerTestContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        return new ListenerPorts(!definedPorts(testClass));
    }

    private static boolean definedPorts(Class<?> testClass) {
        SpringBootTest test = TestContextAnnotationUtils.findMergedAnnotation(testClass, SpringBootTest.class);
        return test != null && test.webEnvironment() == SpringBootTest.WebEnvironment.DEFINED_PORT;
    }

    /**
     * Installs the resolver of {@link LocalListenerPort} and, when asked, puts a property source in
     * front of all others once the context's own are in place (before the bean factory is processed,
     * so after every other customizer and initializer): port {@code 0} for each listener the
     * environment configures.
     * @param ephemeral whether the listeners get ephemeral ports
     */
    record ListenerPorts(boolean ephemeral) implements ContextCustomizer {

        static final String SOURCE = "sockstate-ephemeral-listener-ports";

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
            if (context.getBeanFactory() instanceof DefaultListableBeanFactory beans) {
                beans.setAutowireCandidateResolver(new LocalListenerPortResolver());
            }
            if (this.ephemeral) {
                context.addBeanFactoryPostProcessor((beanFactory) -> ephemeral(context.getEnvironment()));
            }
        }

        private static void ephemeral(ConfigurableEnvironment environment) {
            Map<String, Object> ports = new LinkedHashMap<>();
            // Only the names: the listeners' values are bound (and refused, if wrong) by the properties themselves.
            ListenerNames.keysUnder(environment, "sockstate.listeners").forEach((key) -> ports.put("sockstate.listeners" + key + ".port", 0));
            environment.getPropertySources().addFirst(new MapPropertySource(SOURCE, ports));
        }
    }
}
