package dev.sockstate.autoconfigure;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Backends;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * What the socket servers reach by reflection, JNI and resources, for ahead-of-time processing:
 * the backends found by {@link java.util.ServiceLoader} (their service file and constructors), the
 * classes each binds to native code with JNA direct mapping (their native methods, through JNI and
 * reflection) and JNA's dispatch library. Handler methods are kept by their annotations, which are
 * {@link org.springframework.aot.hint.annotation.Reflective}.
 */
final class SockstateRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        hints.resources().registerPattern("META-INF/services/" + Backend.class.getName());
        // libjnidispatch.so/.jnilib/.a on Linux, macOS and AIX; jnidispatch.dll on Windows.
        hints.resources().registerPattern("com/sun/jna/*/libjnidispatch.*");
        hints.resources().registerPattern("com/sun/jna/*/jnidispatch.dll");
        for (Backend backend : Backends.all()) {
            hints.reflection().registerType(backend.getClass(), MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
            for (String binding : backend.nativeBindings()) {
                TypeReference type = TypeReference.of(binding);
                hints.reflection().registerType(type, MemberCategory.INVOKE_DECLARED_METHODS);
                hints.jni().registerType(type, MemberCategory.INVOKE_DECLARED_METHODS);
            }
        }
    }
}
