package dev.sockstate.server.tls;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;

/**
 * The key and trust managers a native TLS engine is made of ({@link Tls#withProvider}): a server's
 * certificate and key, and the certificates it trusts of its clients; a client's trusted certificates,
 * and its own certificate when servers ask for one. A supplier that gives managers of the same
 * factories again (the same instance, or another of the same two) reuses the native context made of
 * them; other factories are a reload.
 * @param keyManagers the certificate and private key presented (a server needs one), {@code null} for none
 * @param trustManagers the certificates trusted of the peer, {@code null} for the JDK's default trust store
 */
public record TlsManagers(@Nullable KeyManagerFactory keyManagers, @Nullable TrustManagerFactory trustManagers) {
}
