package dev.sockstate.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backends;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.MessageHandler;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.engine.TlsCertificates;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.tls.Tls;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The TLS listener of the reference documentation's TLS page, with a test CA's certificate, over a real handshake. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TlsListenerExampleTest {

    // tag::tls-listener[]
    static ListenerSettings secureListener(Supplier<SSLContext> contexts, MessageHandler<String> handler) {
        Tls tls = Tls.server(contexts)                          // asked once per new connection: a reloaded context serves new ones
                .withClientAuth(Tls.ClientAuth.WANT)            // NONE (the default), WANT or NEED
                .withProtocols("TLSv1.3", "TLSv1.2")            // none: the context's defaults; likewise withCipherSuites
                .withHandshakeTimeout(Duration.ofSeconds(5));   // 10 s unless set
        return ListenerSettings.tcp("secure").address(InetAddress.getLoopbackAddress()).portNumber(0)
                .tls(tls).framing(Framing.line()).handler(handler).build();
    }
    // end::tls-listener[]

    @Test
    void aClientThatTrustsTheCertificateIsServedPlaintextLinesOverTls() throws Exception {
        SSLContext serverContext = TlsCertificates.get().context("server");
        SSLContext clientContext = TlsCertificates.get().context(null);
        MessageHandler<String> upper = new MessageHandler<>() {

            @Override
            public Class<String> messageType() {
                return String.class;
            }

            @Override
            public Object onMessage(Connection connection, String line) {
                return line.toUpperCase(java.util.Locale.ROOT) + " over " + connection.tlsSession().getProtocol();
            }
        };
        SocketServer server = new SocketServer(Backends.select("auto"),
                List.of(WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1)),
                List.of(secureListener(() -> serverContext, upper)), ServerObserver.NONE);
        server.start();
        try (SSLSocket client = (SSLSocket) clientContext.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(),
                server.listener("secure").portNumber())) {
            client.setSoTimeout(5000);
            client.startHandshake();
            client.getOutputStream().write("hello\n".getBytes(StandardCharsets.UTF_8));
            client.getOutputStream().flush();
            String reply = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertThat(reply).isIn("HELLO over TLSv1.3", "HELLO over TLSv1.2");
        }
        finally {
            server.stop(Duration.ofSeconds(5));
        }
    }
}
