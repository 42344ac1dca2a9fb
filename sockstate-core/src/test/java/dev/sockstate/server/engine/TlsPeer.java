package dev.sockstate.server.engine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/** A TLS client in memory: an {@link SSLEngine} in client mode whose records a test carries by hand. */
final class TlsPeer {

    final SSLEngine engine;

    private ByteBuffer inbound = ByteBuffer.allocate(0);

    TlsPeer(SSLContext context, String protocol) throws SSLException {
        this(context, protocol, null);
    }

    /** @param serverName the host name the ClientHello asks for (SNI), or {@code null} for none */
    TlsPeer(SSLContext context, String protocol, String serverName) throws SSLException {
        this.engine = context.createSSLEngine("localhost", 443);
        this.engine.setUseClientMode(true);
        this.engine.setEnabledProtocols(new String[] {protocol});
        if (serverName != null) {
            SSLParameters parameters = this.engine.getSSLParameters();
            parameters.setServerNames(List.of(new SNIHostName(serverName)));
            this.engine.setSSLParameters(parameters);
        }
        this.engine.beginHandshake();
    }

    /** @return the records the engine has to send now (handshake messages), running its tasks inline */
    byte[] produce() throws SSLException {
        ByteArrayOutputStream records = new ByteArrayOutputStream();
        ByteBuffer out = ByteBuffer.allocate(this.engine.getSession().getPacketBufferSize());
        while (true) {
            HandshakeStatus status = this.engine.getHandshakeStatus();
            if (status == HandshakeStatus.NEED_TASK) {
                runTasks();
                continue;
            }
            if (status != HandshakeStatus.NEED_WRAP) {
                return records.toByteArray();
            }
            out.clear();
            SSLEngineResult result = this.engine.wrap(ByteBuffer.allocate(0), out);
            records.write(out.array(), 0, out.position());
            if (result.getStatus() == SSLEngineResult.Status.CLOSED) {
                return records.toByteArray();
            }
        }
    }

    /** @return the plaintext in the records received, whose handshake messages the engine took */
    String consume(byte[] records) throws SSLException {
        ByteBuffer joined = ByteBuffer.allocate(this.inbound.remaining() + records.length);
        joined.put(this.inbound).put(records).flip();
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        ByteBuffer out = ByteBuffer.allocate(this.engine.getSession().getApplicationBufferSize());
        while (joined.hasRemaining()) {
            if (this.engine.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
                runTasks();
            }
            out.clear();
            SSLEngineResult result = this.engine.unwrap(joined, out);
            plain.write(out.array(), 0, out.position());
            if (result.getStatus() != SSLEngineResult.Status.OK || result.bytesConsumed() == 0) {
                break;
            }
        }
        this.inbound = joined;
        return plain.toString(StandardCharsets.UTF_8);
    }

    /** @return records carrying the text */
    byte[] seal(String text) throws SSLException {
        ByteBuffer out = ByteBuffer.allocate(this.engine.getSession().getPacketBufferSize() * 2);
        ByteBuffer in = StandardCharsets.UTF_8.encode(text);
        while (in.hasRemaining()) {
            SSLEngineResult result = this.engine.wrap(in, out);
            if (result.bytesConsumed() == 0 && result.bytesProduced() == 0) {
                throw new IllegalStateException("The client cannot seal data now: " + result);
            }
        }
        byte[] records = new byte[out.position()];
        out.flip().get(records);
        return records;
    }

    /** @return whether the client's handshake ended */
    boolean established() {
        HandshakeStatus status = this.engine.getHandshakeStatus();
        return status == HandshakeStatus.NOT_HANDSHAKING || status == HandshakeStatus.FINISHED;
    }

    /** Runs the engine's delegated tasks, inline. */
    void runTasks() {
        Runnable task;
        while ((task = this.engine.getDelegatedTask()) != null) {
            task.run();
        }
    }

    /**
     * Goes through the handshake up to the client's last flight: sends what the client sends before
     * (a compatibility change_cipher_spec), reads the server's flight.
     * @return the client's last flight, not sent
     */
    byte[] handshakeUpToTheLastFlight(Socket socket) throws IOException {
        byte[] chunk = new byte[16 * 1024];
        InputStream in = socket.getInputStream();
        while (true) {
            HandshakeStatus status = this.engine.getHandshakeStatus();
            if (status == HandshakeStatus.NEED_TASK) {
                runTasks();
            }
            else if (status == HandshakeStatus.NEED_WRAP) {
                byte[] records = produce();
                if (this.engine.getHandshakeStatus() != HandshakeStatus.NEED_UNWRAP) {
                    return records;
                }
                socket.getOutputStream().write(records);
            }
            else if (status == HandshakeStatus.NEED_UNWRAP) {
                // Records read before the client had to write may be waiting in it.
                consume(new byte[0]);
                if (this.engine.getHandshakeStatus() != HandshakeStatus.NEED_UNWRAP) {
                    continue;
                }
                int count = in.read(chunk);
                if (count < 0) {
                    throw new IOException("The server closed the connection during the handshake");
                }
                byte[] records = new byte[count];
                System.arraycopy(chunk, 0, records, 0, count);
                consume(records);
            }
            else {
                throw new IllegalStateException("The client's handshake ended before its last flight: " + status);
            }
        }
    }
}
