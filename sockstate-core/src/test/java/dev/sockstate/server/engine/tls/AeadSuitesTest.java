package dev.sockstate.server.engine.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;

class AeadSuitesTest {

    @Test
    void theJdksDefaultsLoseTheirCbcSuitesAndKeepEveryTls13AndGcmOne() throws Exception {
        SSLContext context = SSLContext.getDefault();
        List<String> defaults = List.of(context.createSSLEngine().getEnabledCipherSuites());
        AeadSuites aead = new AeadSuites();
        SSLEngine engine = context.createSSLEngine();
        List<String> kept = List.of(aead.of(context, engine));
        assertThat(defaults).anyMatch((suite) -> suite.contains("_CBC_"));
        assertThat(kept).noneMatch((suite) -> suite.contains("_CBC_")).contains("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
                "TLS_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256");
        assertThat(defaults).containsSubsequence(kept);
        assertThat(aead.of(context, context.createSSLEngine())).as("worked out once per context").isSameAs(aead.of(context, engine));
    }

    @Test
    void aeadSuitesAreNamedByTheirCipher() {
        assertThat(List.of("TLS_AES_128_CCM_SHA256", "TLS_RSA_WITH_AES_128_CCM", "TLS_ECDHE_ECDSA_WITH_AES_256_CCM_8",
                "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_EMPTY_RENEGOTIATION_INFO_SCSV")).allMatch(AeadSuites::isAead);
        assertThat(List.of("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "TLS_RSA_WITH_3DES_EDE_CBC_SHA", "SSL_RSA_WITH_RC4_128_SHA",
                "TLS_ECDHE_ECDSA_WITH_NULL_SHA")).noneMatch(AeadSuites::isAead);
    }
}
