package dev.sockstate.spring.handler;

import java.lang.reflect.Method;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.annotation.SimpleReflectiveProcessor;

/**
 * Ahead-of-time hints for a handler method that may take or return a message type of the
 * application's own: the method is invoked reflectively, and each such type is read and written by
 * binding (Jackson, say), so its properties are kept too.
 */
final class HandlerMethodReflectiveProcessor extends SimpleReflectiveProcessor {

    private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

    @Override
    protected void registerMethodHint(ReflectionHints hints, Method method) {
        super.registerMethodHint(hints, method);
        for (Class<?> type : method.getParameterTypes()) {
            if (isMessageType(type)) {
                this.bindings.registerReflectionHints(hints, type);
            }
        }
        if (isMessageType(method.getReturnType())) {
            this.bindings.registerReflectionHints(hints, method.getGenericReturnType());
        }
    }

    /** @return whether the type may be the application's own (not the JDK's, not a type of sockstate's API, not a primitive) */
    private static boolean isMessageType(Class<?> type) {
        if (type.isPrimitive() || type.isArray()) {
            return false;
        }
        String name = type.getName();
        return !name.startsWith("java.") && !name.startsWith("dev.sockstate.server.") && !name.startsWith("dev.sockstate.port.");
    }
}
