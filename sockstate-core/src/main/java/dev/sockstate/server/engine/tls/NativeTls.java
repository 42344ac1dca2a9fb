package dev.sockstate.server.engine.tls;

import dev.sockstate.server.tls.Tls;
import org.jspecify.annotations.Nullable;

/**
 * Which engine settings get: OpenSSL's where they ask for it, or ask for it automatically and it
 * loads ({@link Tls#openSslUnavailability()}, found once); names no Netty class, so that it answers
 * where Netty is absent.
 */
final class NativeTls {

    private static final System.Logger logger = System.getLogger(NativeTls.class.getName());

    private NativeTls() {
    }

    /** @return why OpenSSL's engine does not load here, {@code null} when it does */
    static @Nullable Throwable unavailability() {
        return Tls.openSslUnavailability();
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
                if (Tls.openSslUnavailability() == null) {
                    yield true;
                }
                FallbackNotice.said();
                yield false;
            }
        };
    }

    /** The one INFO line of an automatic choice that falls back, said when first needed. */
    private static final class FallbackNotice {

        static {
            logger.log(System.Logger.Level.INFO, "OpenSSL's TLS engine does not load here, so TLS set to choose its engine"
                    + " automatically uses the JDK's: " + Tls.openSslUnavailability());
        }

        static void said() {
            // Loading the class said it.
        }
    }
}
