package dev.sockstate.server.engine.tls;

import dev.sockstate.server.tls.Tls;
import org.jspecify.annotations.Nullable;

/**
 * Whether OpenSSL's TLS engine loads in this process: probed once, on the first settings that ask
 * for it, and kept with its cause when it does not (Netty's handler or netty-tcnative missing from the
 * class path, or the native library refused by the platform). Names no Netty class itself, so that
 * it answers where Netty is absent.
 */
final class NativeTls {

    private static final System.Logger logger = System.getLogger(NativeTls.class.getName());

    private NativeTls() {
    }

    /** @return why OpenSSL's engine does not load here, {@code null} when it does */
    static @Nullable Throwable unavailability() {
        return Probe.CAUSE;
    }

    /**
     * @param tls a listener's or client's TLS
     * @return whether its connections get OpenSSL's engine: asked for, or automatic and loaded (an
     * automatic choice that falls back to the JDK's says so once, in an INFO line with the cause)
     */
    static boolean chosen(Tls tls) {
        return switch (tls.provider()) {
            case JDK -> false;
            case OPENSSL -> true;
            case AUTO -> {
                if (Probe.CAUSE == null) {
                    yield true;
                }
                FallbackNotice.said();
                yield false;
            }
        };
    }

    /** The probe, run when first asked. */
    private static final class Probe {

        static final @Nullable Throwable CAUSE = probe();

        private static @Nullable Throwable probe() {
            try {
                Class.forName("io.netty.handler.ssl.OpenSsl", false, NativeTls.class.getClassLoader());
            }
            catch (ClassNotFoundException | LinkageError ex) {
                return new ClassNotFoundException("io.netty:netty-handler and io.netty:netty-tcnative-boringssl-static are not on"
                        + " the class path", ex);
            }
            try {
                return OpenSslEngines.unavailabilityCause();
            }
            catch (LinkageError ex) {
                return ex;
            }
        }
    }

    /** The one INFO line of an automatic choice that falls back, said when first needed. */
    private static final class FallbackNotice {

        static {
            logger.log(System.Logger.Level.INFO, "OpenSSL's TLS engine does not load here, so TLS set to choose its engine"
                    + " automatically uses the JDK's: " + Probe.CAUSE);
        }

        static void said() {
            // Loading the class said it.
        }
    }
}
