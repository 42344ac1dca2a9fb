package dev.sockstate.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/** The JDK's TLS client set up with the tests' key material ({@code src/test/resources/tls}). */
public final class TlsClients {

    private TlsClients() {
    }

    /**
     * @param context the client's TLS
     * @param port the listener's port number on the loopback address
     * @return a TLS socket to it, reads timing out after 5 s
     */
    public static SSLSocket connect(SSLContext context, int port) throws IOException {
        SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), port);
        socket.setSoTimeout(5000);
        return socket;
    }

    /** @return a client trusting the test CA, with the named client's key (client.p12, stranger.p12) or none */
    public static SSLContext client(String key) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream ca = TlsClients.class.getResourceAsStream("/tls/ca.crt")) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(ca));
        }
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        KeyManagerFactory keyManagers = null;
        if (key != null) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            try (InputStream in = TlsClients.class.getResourceAsStream("/tls/" + key + ".p12")) {
                keys.load(in, "secret".toCharArray());
            }
            keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, "secret".toCharArray());
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init((keyManagers != null) ? keyManagers.getKeyManagers() : null, trustManagers.getTrustManagers(), null);
        return context;
    }

    /**
     * Writes a command line and reads the answer line to it.
     * @param expected the answer looked for: as many bytes as it has, and the line end, are read
     * @return the answer, without its line end
     */
    public static String ask(OutputStream out, InputStream in, String command, String expected) throws IOException {
        out.write((command + "\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String answer = new String(in.readNBytes(expected.length() + 1), StandardCharsets.US_ASCII);
        return answer.endsWith("\n") ? answer.substring(0, answer.length() - 1) : answer;
    }
}
