package dev.sockstate.boot.test;

import java.lang.reflect.Field;
import java.util.Set;
import org.springframework.core.env.Environment;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.support.AbstractTestExecutionListener;
import org.springframework.test.context.support.DependencyInjectionTestExecutionListener;
import org.springframework.util.ReflectionUtils;

/**
 * Sets the test's {@link LocalListenerPort} fields, after Spring's dependency injection, from the
 * {@code local.sockstate.<name>.port} properties the server publishes as its listeners bind, and
 * again before each test method. Loads the context only for tests that have such a field.
 */
final class LocalListenerPortTestExecutionListener extends AbstractTestExecutionListener {

    @Override
    public int getOrder() {
        return DependencyInjectionTestExecutionListener.ORDER + 100;
    }

    @Override
    public void prepareTestInstance(TestContext testContext) {
        injectPorts(testContext);
    }

    /**
     * Again before each method: its context may have been started afresh (dirtied before the method),
     * with listeners on other ports.
     */
    @Override
    public void beforeTestMethod(TestContext testContext) {
        injectPorts(testContext);
    }

    private static void injectPorts(TestContext testContext) {
        Object test = testContext.getTestInstance();
        ReflectionUtils.doWithFields(testContext.getTestClass(), (field) -> inject(testContext, test, field),
                (field) -> field.isAnnotationPresent(LocalListenerPort.class));
    }

    private static void inject(TestContext testContext, Object test, Field field) {
        String listener = field.getAnnotation(LocalListenerPort.class).value();
        Environment environment = testContext.getApplicationContext().getEnvironment();
        Integer port = environment.getProperty("local.sockstate." + listener + ".port", Integer.class);
        if (port == null) {
            throw new IllegalStateException("@LocalListenerPort(\"" + listener + "\") on " + field + ": no listener of that name"
                    + " is bound; bound listeners: " + bound(environment));
        }
        Object value;
        if (field.getType() == int.class || field.getType() == Integer.class) {
            value = port;
        }
        else if (field.getType() == String.class) {
            value = port.toString();
        }
        else {
            throw new IllegalStateException("@LocalListenerPort on " + field + ": the field must be an int, Integer or String");
        }
        ReflectionUtils.makeAccessible(field);
        ReflectionUtils.setField(field, test, value);
    }

    private static Set<String> bound(Environment environment) {
        return ListenerNames.under(environment, "local.sockstate");
    }
}
