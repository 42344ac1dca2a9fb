package dev.sockstate.server.tls;

import java.lang.reflect.InvocationTargetException;
import org.jspecify.annotations.Nullable;

/**
 * Whether OpenSSL's TLS engine loads in this process: asked of Netty's {@code OpenSsl} once, by
 * name, so that it answers where Netty is absent, and kept with its cause when it does not load
 * (Netty's handler or netty-tcnative missing from the class path, or the native library refused by
 * the platform).
 */
final class OpenSslProbe {

    /** Why it does not load, {@code null} when it does. */
    static final @Nullable Throwable CAUSE = probe();

    private OpenSslProbe() {
    }

    private static @Nullable Throwable probe() {
        Class<?> openSsl;
        try {
            openSsl = Class.forName("io.netty.handler.ssl.OpenSsl", true, OpenSslProbe.class.getClassLoader());
        }
        catch (ClassNotFoundException ex) {
            return new ClassNotFoundException("io.netty:netty-handler and io.netty:netty-tcnative-boringssl-static are not on the"
                    + " class path", ex);
        }
        catch (LinkageError ex) {
            return new IllegalStateException("Netty's OpenSsl class is on the class path but does not load", ex);
        }
        try {
            if ((Boolean) openSsl.getMethod("isAvailable").invoke(null)) {
                return null;
            }
            return (Throwable) openSsl.getMethod("unavailabilityCause").invoke(null);
        }
        catch (InvocationTargetException ex) {
            return ex.getCause();
        }
        catch (ReflectiveOperationException | LinkageError ex) {
            return ex;
        }
    }
}
