package dev.sockstate.server.engine;

import dev.sockstate.server.tls.Tls;
import dev.sockstate.server.tls.TlsManagers;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A test CA and certificates it signed, made once per test run with the JDK's {@code keytool} into a
 * temporary directory: {@code server} (CN and SAN localhost, 127.0.0.1), {@code alpha} (alpha.test,
 * for SNI) and {@code client} (a client certificate). The CA is also written as {@code ca.pem} for
 * tools such as openssl.
 */
public final class TlsCertificates {

    private static final String PASSWORD = "changeit-test";

    /**
     * The TLS engine the suites' listeners and clients run on: the JDK's unless
     * {@code -Dsockstate.test.tls.provider=openssl} (the native engine's execution of the TLS suites).
     */
    static final Tls.Provider PROVIDER = Tls.Provider.valueOf(System.getProperty("sockstate.test.tls.provider", "jdk")
            .toUpperCase(java.util.Locale.ROOT));

    private static TlsCertificates made;

    private final Path directory;

    private final KeyStore store;

    private TlsCertificates(Path directory, KeyStore store) {
        this.directory = directory;
        this.store = store;
    }

    /** @return the certificates, made on first use */
    public static synchronized TlsCertificates get() throws Exception {
        if (made == null) {
            made = make();
        }
        return made;
    }

    private static TlsCertificates make() throws Exception {
        Path directory = Files.createTempDirectory("sockstate-tls");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(directory)));
        keytool(directory, "-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=sockstate test CA",
                "-ext", "bc:c", "-validity", "3");
        leaf(directory, "server", "CN=localhost", "san=dns:localhost,ip:127.0.0.1", "eku=serverAuth");
        leaf(directory, "alpha", "CN=alpha.test", "san=dns:alpha.test", "eku=serverAuth");
        leaf(directory, "client", "CN=sockstate test client", "san=dns:client.test", "eku=clientAuth");
        keytool(directory, "-exportcert", "-alias", "ca", "-rfc", "-file", directory.resolve("ca.pem").toString());
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(directory.resolve("all.p12"))) {
            store.load(in, PASSWORD.toCharArray());
        }
        return new TlsCertificates(directory, store);
    }

    private static void leaf(Path directory, String alias, String name, String san, String usage) throws Exception {
        String request = directory.resolve(alias + ".csr").toString();
        String signed = directory.resolve(alias + ".pem").toString();
        keytool(directory, "-genkeypair", "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", name, "-validity", "3");
        keytool(directory, "-certreq", "-alias", alias, "-file", request);
        keytool(directory, "-gencert", "-alias", "ca", "-infile", request, "-outfile", signed, "-rfc", "-ext", san, "-ext", usage,
                "-validity", "3");
        keytool(directory, "-importcert", "-alias", alias, "-file", signed, "-noprompt");
    }

    private static void keytool(Path directory, String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-storetype", "PKCS12", "-keystore",
                directory.resolve("all.p12").toString(), "-storepass", PASSWORD));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IllegalStateException("keytool " + String.join(" ", arguments) + " failed: " + output);
        }
    }

    private static void delete(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
        }
        catch (IOException ex) {
            // left for the system's temporary directory cleaning
        }
    }

    /** @return the CA certificate as PEM, for openssl's {@code -CAfile} */
    Path caPem() {
        return this.directory.resolve("ca.pem");
    }

    /** @return the certificate of an alias */
    X509Certificate certificate(String alias) throws Exception {
        return (X509Certificate) this.store.getCertificate(alias);
    }

    /** @return a context whose key is the alias's (or none, for {@code null}) and that trusts the CA */
    public SSLContext context(String keyAlias) throws Exception {
        return context(keyAlias, UnaryOperator.identity());
    }

    /**
     * @param keyAlias the key's alias, or {@code null} for none
     * @param keyManager what the context's key manager is, given the one the key makes (a wrapper that counts its calls, say)
     * @return a context with that key manager, trusting the CA
     */
    SSLContext context(String keyAlias, UnaryOperator<X509ExtendedKeyManager> keyManager) throws Exception {
        return context(keyAlias, keyManager, UnaryOperator.identity());
    }

    /**
     * @param keyAlias the key's alias, or {@code null} for none
     * @param keyManager what the context's key manager is, given the one the key makes
     * @param trustManager what its trust manager is, given the one that trusts the CA (one that holds a check, say)
     * @return a context with those managers
     */
    SSLContext context(String keyAlias, UnaryOperator<X509ExtendedKeyManager> keyManager,
            UnaryOperator<X509ExtendedTrustManager> trustManager) throws Exception {
        TlsManagers managers = managers(keyAlias);
        SSLContext context = SSLContext.getInstance("TLS");
        KeyManager[] made = managers.keyManagers().getKeyManagers();
        made[0] = keyManager.apply((X509ExtendedKeyManager) made[0]);
        TrustManager[] trusting = managers.trustManagers().getTrustManagers();
        trusting[0] = trustManager.apply((X509ExtendedTrustManager) trusting[0]);
        context.init(made, trusting, null);
        return context;
    }

    /** @return the managers a native engine is made of: the alias's key (or none, for {@code null}), trusting the CA */
    public TlsManagers managers(String keyAlias) throws Exception {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        if (keyAlias != null) {
            PrivateKey key = (PrivateKey) this.store.getKey(keyAlias, PASSWORD.toCharArray());
            Certificate[] chain = this.store.getCertificateChain(keyAlias);
            keys.setKeyEntry(keyAlias, key, PASSWORD.toCharArray(), chain);
        }
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, PASSWORD.toCharArray());
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("ca", this.store.getCertificate("ca"));
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trusted);
        return new TlsManagers(keyManagers, trustManagers);
    }

    /**
     * @param keyAlias the server's key's alias
     * @return a server's TLS of that key, trusting the CA, on the engine the tests run ({@link #PROVIDER})
     */
    public Tls server(String keyAlias) throws Exception {
        return server(keyAlias, PROVIDER);
    }

    /**
     * @param keyAlias the server's key's alias
     * @param provider the engine
     * @return a server's TLS of that key, trusting the CA, on that engine
     */
    public Tls server(String keyAlias, Tls.Provider provider) throws Exception {
        TlsManagers managers = managers(keyAlias);
        return Tls.server(context(keyAlias)).withProvider(provider, (provider == Tls.Provider.JDK) ? null : () -> managers);
    }

    /**
     * @param keyAlias the client's key's alias, or {@code null} for none
     * @return a client's TLS of that key, trusting the CA, on the engine the tests run ({@link #PROVIDER})
     */
    public Tls client(String keyAlias) throws Exception {
        TlsManagers managers = managers(keyAlias);
        return Tls.client(context(keyAlias)).withProvider(PROVIDER, (PROVIDER == Tls.Provider.JDK) ? null : () -> managers);
    }
}
