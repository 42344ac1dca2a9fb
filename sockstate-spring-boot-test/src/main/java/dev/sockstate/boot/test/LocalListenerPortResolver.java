package dev.sockstate.boot.test;

import java.lang.reflect.Method;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.config.DependencyDescriptor;
import org.springframework.context.annotation.ContextAnnotationAutowireCandidateResolver;
import org.springframework.core.env.Environment;

/**
 * A test context's resolver of what to inject: Spring's own, and for a {@link LocalListenerPort}
 * dependency {@code ${local.sockstate.<name>.port}}, which the server publishes as its listeners bind
 * (Spring then converts it to the target's type). Spring's own type, so that Spring keeps it when it
 * registers its annotation processors again (a component scan does).
 */
final class LocalListenerPortResolver extends ContextAnnotationAutowireCandidateResolver {

    @Override
    public @Nullable Object getSuggestedValue(DependencyDescriptor descriptor) {
        LocalListenerPort port = descriptor.getAnnotation(LocalListenerPort.class);
        if (port == null) {
            Method method = (descriptor.getMethodParameter() != null) ? descriptor.getMethodParameter().getMethod() : null;
            port = (method != null && method.getParameterCount() == 1) ? method.getAnnotation(LocalListenerPort.class) : null;
        }
        if (port == null) {
            return super.getSuggestedValue(descriptor);
        }
        String property = "local.sockstate." + port.value() + ".port";
        Environment environment = getBeanFactory().getBean(Environment.class);
        if (environment.getProperty(property) == null) {
            Set<String> bound = ListenerNames.under(environment, "local.sockstate");
            throw new IllegalStateException("@LocalListenerPort(\"" + port.value() + "\") on " + descriptor.getMember()
                    + ": no listener of that name is bound" + (bound.isEmpty() ? " (yet: the ports are known once the server"
                            + " started, and a bean made before asks for one lazily)" : "; bound listeners: " + bound));
        }
        return "${" + property + "}";
    }
}
