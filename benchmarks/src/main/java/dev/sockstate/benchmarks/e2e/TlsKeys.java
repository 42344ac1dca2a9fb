package dev.sockstate.benchmarks.e2e;

import java.io.FileInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The TLS comparison's key material: one self-signed EC P-256 certificate for localhost, made with
 * the JDK's {@code keytool} for the run, in a PKCS12 store that every server and the client read
 * (system property {@value #PROPERTY}).
 */
final class TlsKeys {

    /** The system property naming the store; the harness passes it to each server's JVM. */
    static final String PROPERTY = "benchmark.tls.keystore";

    static final String PASSWORD = "benchmark";

    private TlsKeys() {
    }

    /**
     * @param directory where to put the store
     * @return the store, made now
     * @throws Exception when keytool fails
     */
    static Path make(Path directory) throws Exception {
        Files.createDirectories(directory);
        Path store = directory.resolve("bench.p12");
        Files.deleteIfExists(store);
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process process = new ProcessBuilder(List.of(keytool, "-genkeypair", "-alias", "bench", "-keyalg", "EC", "-groupname",
                "secp256r1", "-sigalg", "SHA256withECDSA", "-dname", "CN=localhost", "-ext", "san=dns:localhost,ip:127.0.0.1",
                "-validity", "7", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD))
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("keytool failed: " + output);
        }
        return store;
    }

    /** @return the store this process was given */
    static Path store() {
        String path = System.getProperty(PROPERTY);
        if (path == null) {
            throw new IllegalStateException("No TLS key store: set -D" + PROPERTY);
        }
        return Path.of(path);
    }

    /** @return the store, loaded */
    static KeyStore load() throws Exception {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(store().toFile())) {
            keys.load(in, PASSWORD.toCharArray());
        }
        return keys;
    }

    /** @return the servers' key managers' factory */
    static KeyManagerFactory keyManagers() throws Exception {
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(load(), PASSWORD.toCharArray());
        return factory;
    }

    /** @return the client's context: it trusts the certificate, and keeps no session to resume */
    static SSLContext clientContext() throws Exception {
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(load());
        SSLContext context = SSLContext.getInstance("TLSv1.3");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }

    /**
     * @param provider the listener's TLS engine ({@code ssl.provider}: jdk or openssl)
     * @return the properties that put sockstate's echo listener on the store, as a user writes them
     */
    static List<String> sockstateProperties(String provider) {
        return List.of("spring.ssl.bundle.jks.bench.keystore.location=file:" + store(),
                "spring.ssl.bundle.jks.bench.keystore.password=" + PASSWORD, "spring.ssl.bundle.jks.bench.keystore.type=PKCS12",
                "sockstate.listeners.echo.ssl.bundle=bench", "sockstate.listeners.echo.ssl.provider=" + provider);
    }
}
