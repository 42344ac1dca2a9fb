package dev.sockstate.server.engine;

import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.tls.Tls;
import javax.net.ssl.SSLSocket;

/**
 * A server whose TLS asks for the engine named by the first argument, started in a JVM whose class
 * path {@link NativeTlsTest} left Netty out of: prints "refused: " and the start's failure, or
 * "served: " and what a TLS client's echo brought back, with whether the engines are native.
 */
final class NativeTlsAbsentMain {

    private NativeTlsAbsentMain() {
    }

    public static void main(String[] args) throws Exception {
        try (TlsFixture fixture = new TlsFixture()) {
            Tls tls = fixture.certificates.server("server", Tls.Provider.valueOf(args[0]));
            SocketServer server;
            try {
                server = fixture.start(tls, new TlsFixture.Recording());
            }
            catch (InvalidSettingException ex) {
                System.out.println("refused: " + ex.getMessage());
                return;
            }
            SSLSocket client = fixture.client(server, null, "TLSv1.3");
            System.out.println("served: " + TlsFixture.echo(client, "hello") + ", native engines " + fixture.counts.nativeTlsEngines());
        }
    }
}
