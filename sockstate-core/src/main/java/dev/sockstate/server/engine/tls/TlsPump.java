package dev.sockstate.server.engine.tls;

import dev.sockstate.server.StageContext;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLEngineResult.Status;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * Moves one connection's records through its {@link SSLEngine}, for {@link TlsStage}, which decides
 * what the results mean for the connection (the open, a failure, the engine's tasks). Unwrapping
 * reads records from the bytes at hand into a plaintext buffer lent for the call and passes the
 * plaintext on; wrapping writes records into a packet buffer lent for the call and passes them on
 * to the socket, which copies only what it does not take. Both gather several records a buffer, so
 * a read of many records reaches the handler in few calls and a large write leaves in few sends.
 */
abstract class TlsPump {

    static final ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();

    final TlsSupport tls;

    /** The stage's context, set as the connection opens. */
    @Nullable StageContext context;

    /** The engine; {@code null} until the ClientHello named the server when contexts are chosen by name. */
    @Nullable SSLEngine engine;

    boolean handshakeDone;

    /** TLS 1.2 or older: a handshake record after the handshake is a renegotiation. */
    boolean legacy;

    boolean failed;

    /** Whether the engine's delegated tasks run: the engine waits for them. */
    boolean tasksRunning;

    /** Whether the peer asked for a TLS 1.2 renegotiation, which the engine is left to refuse. */
    boolean renegotiationRefused;

    TlsPump(TlsSupport tls) {
        this.tls = tls;
    }

    /** @return whether what arrives is still read and passed on */
    abstract boolean reading();

    /** The handshake ended well: the open goes on. */
    abstract void finished();

    /** The engine has delegated tasks: they go to the task executor. */
    abstract void startTasks();

    /** The peer sent close_notify. */
    abstract void peerClosed();

    /**
     * The handshake or the session failed.
     * @param reason the observer's word for it
     * @param cause what failed
     */
    abstract void fail(String reason, Throwable cause);

    /** Unwraps the records in {@code src} and passes their plaintext on; stops at an unfinished record, a task or the end. */
    final void unwrap(ByteBuffer src) {
        ByteBuffer out = null;
        boolean askAgain = false;
        try {
            while ((src.hasRemaining() || askAgain) && reading() && !this.tasksRunning) {
                askAgain = false;
                if (this.handshakeDone && this.legacy && !this.renegotiationRefused && src.hasRemaining()
                        && src.get(src.position()) == TlsRecords.HANDSHAKE) {
                    refuseRenegotiation();
                }
                if (out == null) {
                    out = this.tls.plaintextBuffer(this.engine);
                }
                SSLEngineResult result;
                try {
                    result = this.engine.unwrap(src, out);
                }
                catch (SSLException ex) {
                    out = deliver(out);
                    fail(TlsSupport.reason(ex), ex);
                    return;
                }
                Status status = result.getStatus();
                if (status == Status.BUFFER_UNDERFLOW) {
                    if (result.getHandshakeStatus() == HandshakeStatus.FINISHED) {
                        // The native engine's handshake, ended by the record before, said on this call.
                        after(HandshakeStatus.FINISHED);
                    }
                    return;
                }
                if (status == Status.BUFFER_OVERFLOW) {
                    out = (out.position() > 0) ? deliver(out) : larger(out, this.engine.getSession().getApplicationBufferSize(), false);
                    continue;
                }
                if (status == Status.CLOSED) {
                    out = deliver(out);
                    if (!this.handshakeDone && result.getHandshakeStatus() == HandshakeStatus.FINISHED) {
                        // The native engine ends the handshake and reads the peer's close_notify in one call.
                        finished();
                    }
                    peerClosed();
                    return;
                }
                if (!after(result.getHandshakeStatus())) {
                    return;
                }
                if (result.bytesConsumed() == 0 && result.bytesProduced() == 0
                        && this.engine.getHandshakeStatus() == HandshakeStatus.NEED_UNWRAP) {
                    // No progress without more bytes: wait for them rather than ask again.
                    return;
                }
                // The native engine reads a TLS 1.3 client's Finished and ends the server's handshake only on the
                // call after, bytes or none: asked once more, a client that sends nothing more (as when the server
                // speaks first) is opened all the same.
                askAgain = this.tls.nativeEngines() && !this.handshakeDone && result.bytesConsumed() > 0
                        && result.getHandshakeStatus() == HandshakeStatus.NEED_UNWRAP;
            }
        }
        finally {
            if (out != null) {
                deliver(out);
                this.tls.releasePlaintext(out);
            }
        }
    }

    /**
     * Has the engine refuse a TLS 1.2 renegotiation as servers that do not renegotiate do, with a
     * fatal handshake_failure alert, so that the peer (and a scanner) reads a refusal, not a
     * connection that merely ended: it is left no cipher suite to renegotiate with, so the handshake
     * the peer's hello starts fails in the engine, which sends the alert; the failure is reported as
     * a refused renegotiation. The session's own keys are not touched.
     */
    private void refuseRenegotiation() {
        this.renegotiationRefused = true;
        if (!this.tls.nativeEngines()) {
            this.engine.setEnabledCipherSuites(new String[] {"TLS_EMPTY_RENEGOTIATION_INFO_SCSV"});
        }
    }

    /** Passes on the plaintext gathered in {@code out}, if any, and clears it; @return it */
    private ByteBuffer deliver(ByteBuffer out) {
        if (out != null && out.position() > 0) {
            out.flip();
            if (reading()) {
                this.context.passData(out);
            }
            out.clear();
        }
        return out;
    }

    /**
     * Acts on the engine's handshake status after an operation.
     * @return whether to go on unwrapping: false once tasks started or the connection failed
     */
    final boolean after(HandshakeStatus status) {
        switch (status) {
            case NEED_TASK -> {
                startTasks();
                return false;
            }
            case NEED_WRAP -> {
                return wrapHandshake();
            }
            case FINISHED, NOT_HANDSHAKING -> {
                // After the handshake, a post-handshake message (a key update) ends without opening anything again.
                if (!this.handshakeDone) {
                    finished();
                }
            }
            default -> {
                // NEED_UNWRAP: the peer's next records.
            }
        }
        return !this.failed;
    }

    /** Sends the handshake's records while the engine has some; @return whether to go on unwrapping */
    private boolean wrapHandshake() {
        ByteBuffer out = this.tls.packetBuffer(this.engine);
        try {
            while (true) {
                SSLEngineResult result;
                try {
                    result = this.engine.wrap(EMPTY, out);
                }
                catch (SSLException ex) {
                    send(out);
                    fail(TlsSupport.reason(ex), ex);
                    return false;
                }
                if (result.getStatus() == Status.BUFFER_OVERFLOW) {
                    out = (out.position() > 0) ? send(out) : larger(out, this.engine.getSession().getPacketBufferSize(), true);
                    continue;
                }
                HandshakeStatus status = result.getHandshakeStatus();
                if (result.getStatus() == Status.OK && result.bytesProduced() > 0
                        && (status == HandshakeStatus.NEED_WRAP || (this.handshakeDone && this.tls.nativeEngines()))) {
                    // After the handshake the native engine hands out a failure's alert first, and throws the failure
                    // (bad records, a refused renegotiation: BoringSSL does not renegotiate) on the wrap after it.
                    continue;
                }
                send(out);
                if (result.getStatus() == Status.CLOSED || status == HandshakeStatus.NEED_WRAP) {
                    return false;
                }
                return after(status);
            }
        }
        finally {
            this.tls.releasePacket(out);
        }
    }

    /**
     * Wraps plaintext into records and passes them on.
     * @param data the plaintext; what remains when the engine's tasks start waits for them
     */
    final void wrap(ByteBuffer data) {
        if (this.tls.nativeEngines() && !data.isDirect()) {
            wrapThroughDirect(data);
        }
        else {
            wrapAsIs(data);
        }
    }

    /**
     * The native engine reads plaintext from native memory: it would copy a heap buffer into a direct
     * one of its allocator's at each call (Netty's pooled allocator may park the worker on its lock).
     * The plaintext is copied into a lent direct buffer instead, a buffer's worth at a time.
     */
    private void wrapThroughDirect(ByteBuffer data) {
        ByteBuffer direct = this.tls.plaintextBuffer(this.engine);
        try {
            if (!direct.isDirect()) {
                // Every lent buffer is in use: the engine copies, into memory of its own allocator's.
                wrapAsIs(data);
                return;
            }
            while (data.hasRemaining() && !this.failed) {
                int start = data.position();
                int chunk = Math.min(direct.capacity(), data.remaining());
                direct.clear().put(0, data, start, chunk).limit(chunk);
                wrapAsIs(direct);
                data.position(start + chunk - direct.remaining());
                if (direct.hasRemaining()) {
                    // The engine's tasks started, or its output closed: the rest waits, or has nowhere to go.
                    return;
                }
            }
        }
        finally {
            this.tls.releasePlaintext(direct);
        }
    }

    private void wrapAsIs(ByteBuffer data) {
        ByteBuffer out = this.tls.packetBuffer(this.engine);
        HandshakeStatus status = HandshakeStatus.NOT_HANDSHAKING;
        try {
            while (data.hasRemaining()) {
                SSLEngineResult result;
                try {
                    result = this.engine.wrap(data, out);
                }
                catch (SSLException ex) {
                    send(out);
                    data.position(data.limit());
                    fail(TlsSupport.reason(ex), ex);
                    return;
                }
                if (result.getStatus() == Status.BUFFER_OVERFLOW) {
                    out = (out.position() > 0) ? send(out) : larger(out, this.engine.getSession().getPacketBufferSize(), true);
                    continue;
                }
                if (result.getStatus() == Status.CLOSED) {
                    // The output was closed (close_notify sent): later bytes have nowhere to go.
                    data.position(data.limit());
                    break;
                }
                status = result.getHandshakeStatus();
                if (status == HandshakeStatus.NEED_TASK) {
                    send(out);
                    startTasks();
                    return;
                }
                if (result.bytesConsumed() == 0 && result.bytesProduced() == 0 && status != HandshakeStatus.NEED_WRAP) {
                    throw new IllegalStateException("The TLS engine took nothing and made nothing (" + result + ")");
                }
            }
            send(out);
        }
        finally {
            this.tls.releasePacket(out);
        }
        if (status == HandshakeStatus.NEED_WRAP) {
            wrapHandshake();
        }
    }

    /** Closes the engine's output and sends what that makes: close_notify, or the alert of a failure. */
    final void closeOutbound() {
        ByteBuffer out = this.tls.packetBuffer(this.engine);
        try {
            this.engine.closeOutbound();
            for (int i = 0; i < 4; i++) {
                SSLEngineResult result = this.engine.wrap(EMPTY, out);
                if (result.bytesProduced() == 0 || result.getHandshakeStatus() != HandshakeStatus.NEED_WRAP) {
                    break;
                }
            }
            send(out);
        }
        catch (SSLException | RuntimeException ex) {
            // The engine has nothing to tell the peer: the close goes on without.
        }
        finally {
            this.tls.releasePacket(out);
        }
    }

    /** Passes on the records wrapped into {@code out}, if any, and clears it; @return it */
    private ByteBuffer send(ByteBuffer out) {
        if (out.position() > 0) {
            out.flip();
            this.context.write(out);
            out.clear();
        }
        return out;
    }

    /** @return a heap buffer of at least {@code size} bytes, for one call, in place of a lent one that is too small */
    private ByteBuffer larger(ByteBuffer small, int size, boolean packet) {
        if (size <= small.capacity()) {
            throw new IllegalStateException("The TLS engine asks for more room than " + small.capacity()
                    + " bytes without saying how much");
        }
        if (packet) {
            this.tls.releasePacket(small);
        }
        else {
            this.tls.releasePlaintext(small);
        }
        return ByteBuffer.allocate(size);
    }
}
