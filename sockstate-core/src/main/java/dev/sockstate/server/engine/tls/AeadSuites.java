package dev.sockstate.server.engine.tls;

import java.lang.ref.WeakReference;
import java.util.Arrays;
import javax.net.ssl.SSLEngine;
import org.jspecify.annotations.Nullable;

/**
 * A server's cipher suites when its settings name none: those its context enables by default, less
 * every suite that is not AEAD. TLS 1.3's suites are all AEAD; of TLS 1.2's the GCM, CCM and
 * ChaCha20-Poly1305 ones stay, and the CBC ones (LUCKY13's and the other padding oracles' ground),
 * with any other MAC-then-encrypt suite, go. Worked out once per context: the last few contexts are
 * kept (a listener serving several names, or a reloaded bundle, has several), compared by identity.
 */
final class AeadSuites {

    /** The suite a TLS 1.2 client sends to say it renegotiates securely: a signal, not a cipher. */
    private static final String RENEGOTIATION_SIGNAL = "TLS_EMPTY_RENEGOTIATION_INFO_SCSV";

    private static final int KEPT = 4;

    private volatile @Nullable Entry[] entries = new Entry[KEPT];

    private int next;

    /**
     * @param context the context the engine was made of
     * @param engine a new engine of it, its enabled suites the context's defaults
     * @return the defaults that are AEAD, or all of them when none is (a provider without AEAD suites,
     * which the settings' own list must then choose among)
     */
    String[] of(Object context, SSLEngine engine) {
        for (Entry entry : this.entries) {
            if (entry != null && entry.context.get() == context) {
                return entry.suites;
            }
        }
        String[] defaults = engine.getEnabledCipherSuites();
        String[] aead = Arrays.stream(defaults).filter(AeadSuites::isAead).toArray(String[]::new);
        String[] suites = (aead.length > (Arrays.asList(aead).contains(RENEGOTIATION_SIGNAL) ? 1 : 0)) ? aead : defaults;
        synchronized (this) {
            Entry[] copy = this.entries.clone();
            copy[this.next] = new Entry(new WeakReference<>(context), suites);
            this.next = (this.next + 1) % KEPT;
            this.entries = copy;
        }
        return suites;
    }

    /**
     * @param suite a cipher suite's standard name
     * @return whether it encrypts with an AEAD cipher (or is the renegotiation signal)
     */
    static boolean isAead(String suite) {
        return suite.startsWith("TLS_AES_") || suite.startsWith("TLS_CHACHA20_") // TLS 1.3
                || suite.contains("_GCM_") || suite.contains("_CHACHA20_POLY1305_") || suite.endsWith("_CCM")
                || suite.endsWith("_CCM_8") || RENEGOTIATION_SIGNAL.equals(suite);
    }

    /** A context's suites; the context weakly held, so that a reloaded bundle's old one (its keys) may go. */
    private record Entry(WeakReference<Object> context, String[] suites) {
    }
}
