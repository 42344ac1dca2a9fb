package dev.sockstate.server.engine.tls;

import dev.sockstate.server.Stage;
import dev.sockstate.server.StageContext;
import dev.sockstate.server.tls.ApplicationProtocol;
import dev.sockstate.server.tls.Tls;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/**
 * TLS on one connection, the first stage of its pipeline, between the socket's records and the
 * plaintext the stages above and the handler see (the records pass the engine in {@link TlsPump}).
 * The handshake runs first; the open is passed on once it succeeded, and a failure aborts the
 * connection before the handler heard of it (after a start on request, the handler, opened in
 * plaintext, hears why), counted by the observer with a reason. The engine's
 * delegated tasks run on the listener's task executor, and the stage goes on with
 * {@link StageContext#resume} on the connection's owner, keeping what arrives or is written
 * meanwhile. A handshake that outlasts the limit ends at the stage's deadline ({@link StageContext#deadline}). A
 * graceful end of the output sends close_notify; the peer's close_notify is a hang-up. On a listener
 * that serves plaintext beside TLS, a connection whose first byte begins no handshake is opened at
 * once and passed through unchanged. On one whose TLS starts on request (STARTTLS), the connection is
 * opened at once and passed through until its handler calls {@link #startTls}: the handshake then
 * begins, and the bytes that came after the command are its first ones.
 * <p>
 * <b>Buffers.</b> Only an unfinished record is copied, into {@link #held}, as long as the record,
 * and dropped once it is whole; while tasks run the connection stops reading ({@link StageContext#holdInput}),
 * and the rest of the read at hand is held. Between reads an established connection keeps no buffer.
 * <p>
 * <b>Renegotiation.</b> After a TLS 1.2 handshake, a handshake record from the client can only
 * start a renegotiation: the connection is closed instead. TLS 1.3's key updates are answered.
 */
public final class TlsStage extends TlsPump implements Stage {

    /**
     * Bytes a connection keeps at most before its handshake ended: a client's flight (its
     * certificate chain included) and a first request, never more a peer that is not yet
     * authenticated can make the server hold.
     */
    static final int MOST_HELD_HANDSHAKING = 64 * 1024;

    /** When the handshake's time began: the connection's start, or the handler's start of TLS. */
    private long started;

    /** The handshake's limit, cancelled once it ended. */
    private StageContext.Deadline deadline = StageContext.Deadline.NONE;

    /** The host a client's connection connects to, as its address names it; {@code null} for an accepted connection. */
    private final @Nullable String connectedHost;

    /** The port a client's connection connects to; -1 for an accepted connection. */
    private final int connectedPort;

    /** Bytes read and not unwrapped yet, from 0 to the position: an unfinished record, or what arrived while tasks ran. */
    private @Nullable ByteBuffer held;

    /** Writes made while the handshake or a task runs (copies), wrapped once they end. */
    private @Nullable ArrayDeque<ByteBuffer> waitingWrites;

    private boolean reported;

    private boolean firstByteSeen;

    private boolean hangupPassed;

    /** A FIN arrived while tasks ran: passed on after what arrived before it. */
    private boolean hangupAfterTasks;

    /** A server's ClientHello read so far, until it is whole; then dropped. */
    private TlsRecords.@Nullable HelloAssembly hello;

    /**
     * The connection's first bytes were no TLS handshake, on a listener that serves plaintext beside
     * TLS: the stage passes everything on unchanged.
     */
    private boolean plaintext;

    /** Plaintext passes through until the handler starts TLS ({@link #startTls}); false once it did. */
    private boolean awaitingStart;

    /**
     * TLS started and the framing (or the handler's call) has still to hand back what it holds after
     * the command ({@link #restAfterStart}); until then nothing more is handed out above.
     */
    private boolean awaitsRest;

    /** Whether {@link #data} is passing plaintext on now (a start of TLS then returns to it). */
    private boolean passingPlaintext;

    /** The bytes after the command, handed back while {@link #data} passed plaintext on: the handshake's, once it returns. */
    private @Nullable ByteBuffer rest;

    /** The stage failed or the connection closed: delegated tasks not begun are skipped. */
    private volatile boolean dead;

    /**
     * @param tls what the listener's or client's TLS stages share
     * @param connectedHost the host a client's connection connects to, as its address names it (the
     * server name its TLS asks for and checks unless the settings name another); {@code null} for an
     * accepted connection
     * @param connectedPort the port a client's connection connects to; -1 for an accepted connection
     */
    public TlsStage(TlsSupport tls, @Nullable String connectedHost, int connectedPort) {
        super(tls);
        this.connectedHost = connectedHost;
        this.connectedPort = connectedPort;
        this.started = System.nanoTime();
    }

    @Override
    public void open(StageContext context) throws Exception {
        this.context = context;
        if (this.tls.settings.startsTlsOnRequest()) {
            // Plaintext until the handler starts TLS: neither a handshake to report nor one to time yet.
            this.awaitingStart = true;
            this.reported = true;
            context.passOpen();
            return;
        }
        // The limit counts from the connection's start (when the stage was made), not from this open,
        // which a PROXY protocol header before it may have delayed.
        beginHandshake(context);
    }

    /** Makes the engine (unless the ClientHello picks it), times the handshake from {@link #started}, and sends a client's hello. */
    private void beginHandshake(StageContext context) throws Exception {
        if (!this.tls.byServerName && !this.tls.settings.plaintextServed() && !this.tls.checksOfferedProtocols()) {
            // (Otherwise the ClientHello makes it: a connection may turn out plaintext, or name a server.)
            makeEngine(this.tls.settings);
        }
        if (!this.tls.settings.isClient()) {
            // A server reads the ClientHello whole before the engine sees it (see chooseContext).
            this.hello = new TlsRecords.HelloAssembly();
        }
        this.deadline = context.deadline(this.tls.settings.handshakeTimeout().minusNanos(System.nanoTime() - this.started), this::expire);
        if (this.tls.settings.isClient()) {
            // A client speaks first: its hello goes out now.
            after(this.engine.getHandshakeStatus());
        }
    }

    /**
     * The handler starts TLS on a connection that began in plaintext (STARTTLS), on its own thread:
     * the handshake begins now, timed from now; what the framing or the handler's call holds after the
     * command comes back through {@link #restAfterStart} as its first bytes.
     * @throws IllegalStateException when TLS does not start on request here, or was started already
     * @throws Exception when the engine cannot be made
     */
    public void startTls() throws Exception {
        if (!this.awaitingStart) {
            throw new IllegalStateException("TLS was started already, or began with the connection");
        }
        this.awaitingStart = false;
        this.awaitsRest = true;
        this.reported = false;
        this.firstByteSeen = false;
        this.started = System.nanoTime();
        beginHandshake(this.context);
    }

    /** @return whether the connection's TLS starts on its handler's request, as its listener or client says */
    public boolean startsOnRequest() {
        return this.tls.settings.startsTlsOnRequest();
    }

    /** @return whether the stage is passing a read's plaintext on now, so that a start of TLS returns to it */
    public boolean passesPlaintext() {
        return this.passingPlaintext;
    }

    /** @return whether the connection is still plaintext, its TLS to be started by its handler */
    public boolean awaitsStart() {
        return this.awaitingStart;
    }

    /** @return whether TLS just started and the bytes after the command are still to come back ({@link #restAfterStart}) */
    public boolean awaitsRest() {
        return this.awaitsRest;
    }

    /**
     * The bytes that followed the command that started TLS, as the framing or the handler's call held
     * them: the handshake's first bytes, never the handler's plaintext.
     * @param bytes those bytes, from position to limit; consumed (copied when kept for later)
     * @throws Exception to abort the connection
     */
    public void restAfterStart(ByteBuffer bytes) throws Exception {
        if (this.passingPlaintext) {
            // data() passes plaintext on below this call, maybe in more pieces (a stage of the listener's may cut
            // it): all of them are the handshake's, taken once it returns.
            if (bytes.hasRemaining()) {
                this.rest = TlsRecords.append(this.rest, bytes);
            }
            return;
        }
        this.awaitsRest = false;
        if (bytes.hasRemaining()) {
            data(this.context, bytes);
        }
    }

    private void makeEngine(Tls served) throws Exception {
        try {
            this.engine = this.tls.engine(served, this.connectedHost, this.connectedPort);
        }
        catch (Exception | LinkageError ex) {
            this.failed = true;
            report(false, "configuration");
            throw ex;
        }
    }

    @Override
    public void data(StageContext context, ByteBuffer in) throws Exception {
        if (this.failed) {
            in.position(in.limit());
            return;
        }
        if (this.plaintext) {
            context.passData(in);
            return;
        }
        if (this.awaitingStart) {
            passPlaintextUntilStarted(context, in);
            return;
        }
        this.awaitsRest = false;
        if (!this.firstByteSeen && in.hasRemaining()) {
            this.firstByteSeen = true;
            if (!TlsRecords.mayStartHello(in.get(in.position()))) {
                if (this.tls.settings.plaintextServed()) {
                    servePlaintext(context, in);
                    return;
                }
                in.position(in.limit());
                if (this.tls.nativeEngines()) {
                    // The JDK's engine, closed now, tells the peer with an alert; the native one, before any hello, would not.
                    context.write(TlsRecords.fatalAlert(TlsRecords.UNEXPECTED_MESSAGE));
                }
                fail("plaintext", new SSLHandshakeException("The peer's first bytes are no TLS handshake (plaintext?)"));
                return;
            }
        }
        if (this.tasksRunning) {
            hold(in);
            return;
        }
        if (this.hello != null && !chooseContext(in)) {
            return;
        }
        if (this.held != null) {
            this.held = TlsRecords.complete(this.held, in);
            if (this.held.position() > mostHeld()) {
                in.position(in.limit());
                fail("protocol", tooMuch());
                return;
            }
            if (!TlsRecords.whole(this.held)) {
                return;
            }
            ByteBuffer record = this.held.flip();
            this.held = null;
            unwrap(record);
            if (record.hasRemaining() || this.tasksRunning) {
                keep(record);
                keep(in);
                return;
            }
        }
        unwrap(in);
        keep(in);
    }

    /**
     * Reads the ClientHello whole, once the records it spans arrived (until then what arrives is held,
     * within the handshake's bound), then makes the engine of the context its server name picks, when
     * the listener picks one so, and hands the engine the hello in as few records as carry it.
     * @return false when the ClientHello is unfinished: the bytes are held
     */
    private boolean chooseContext(ByteBuffer in) throws Exception {
        ByteBuffer first;
        if (this.held == null) {
            first = in.duplicate();
        }
        else {
            hold(in);
            if (this.failed) {
                return false;
            }
            first = this.held.duplicate().flip();
        }
        TlsRecords.HelloAssembly assembly = this.hello;
        ByteBuffer hello = assembly.next(first);
        if (hello == TlsRecords.INCOMPLETE) {
            hold(in);
            return false;
        }
        this.hello = null;
        if (hello != null && this.tls.checksOfferedProtocols() && !offersServedProtocol(hello)) {
            return false;
        }
        if (this.engine == null) {
            makeEngine(this.tls.settings.forServerName((hello != null) ? TlsRecords.serverName(hello) : null));
        }
        if (hello != null && assembly.records() > 1 && !this.failed) {
            // The engine is handed the hello in as few records as carry it, the same handshake bytes:
            // the JDK's reassembles a message cut into records by copying what it holds at each one.
            this.held = assembly.coalesced(first);
            in.position(in.limit());
        }
        return !this.failed;
    }

    /**
     * Refuses, as the JDK's engine does, a ClientHello that offers application protocols (ALPN) of
     * which the listener serves none; the native engine would go on without one.
     * @return false when refused: the peer was sent a no_application_protocol alert and the connection fails
     */
    private boolean offersServedProtocol(ByteBuffer hello) {
        List<String> offered = TlsRecords.applicationProtocols(hello);
        String[] served = this.tls.applicationProtocols();
        if (offered == null || served == null || Arrays.stream(served).anyMatch(offered::contains)) {
            return true;
        }
        this.context.write(TlsRecords.fatalAlert(TlsRecords.NO_APPLICATION_PROTOCOL));
        fail("application-protocol", new SSLHandshakeException("No application protocol (ALPN) both sides name: the client offered "
                + offered + ", the listener serves " + Arrays.toString(served)));
        return false;
    }

    /**
     * Passes plaintext on before TLS started; when the handler starts it meanwhile, what came after the
     * command (handed back, or left in the bytes) begins the handshake.
     */
    private void passPlaintextUntilStarted(StageContext context, ByteBuffer in) throws Exception {
        this.passingPlaintext = true;
        try {
            context.passData(in);
        }
        finally {
            this.passingPlaintext = false;
        }
        if (this.awaitingStart || this.failed) {
            return;
        }
        this.awaitsRest = false;
        ByteBuffer rest = this.rest;
        if (rest != null) {
            this.rest = null;
            data(context, rest.flip());
        }
        if (in.hasRemaining() && !this.failed) {
            data(context, in);
        }
    }

    /** The connection is plaintext from its first byte on: opened without a handshake, then passed through. */
    private void servePlaintext(StageContext context, ByteBuffer in) {
        this.plaintext = true;
        this.hello = null;
        // No handshake: neither reported (its close is no failed one) nor timed.
        this.reported = true;
        this.deadline.cancel();
        this.tls.observer.plaintextServed();
        context.passOpen();
        if (in.hasRemaining() && context.takesInput()) {
            context.passData(in);
        }
    }

    @Override
    boolean reading() {
        return !this.failed && !this.hangupPassed && this.context.takesInput();
    }

    @Override
    void finished() {
        this.handshakeDone = true;
        SSLSession session = this.engine.getSession();
        this.legacy = !"TLSv1.3".equals(session.getProtocol());
        this.deadline.cancel();
        this.context.publish(SSLSession.class, session);
        String applicationProtocol = this.engine.getApplicationProtocol();
        if (applicationProtocol != null && !applicationProtocol.isEmpty()) {
            this.context.publish(ApplicationProtocol.class, new ApplicationProtocol(applicationProtocol));
        }
        report(true, null);
        this.context.passOpen();
        flushWaitingWrites();
    }

    @Override
    void startTasks() {
        this.tasksRunning = true;
        // What the peer sends meanwhile (a client may stream at once after its Finished) waits in the
        // socket, not here: only what the read at hand brought is held.
        this.context.holdInput(true);
        try {
            this.tls.taskExecutor.execute(this::runTasks);
        }
        catch (RejectedExecutionException ex) {
            this.tasksRunning = false;
            this.context.holdInput(false);
            fail("rejected", ex);
        }
    }

    /** The task executor's thread: runs the engine's tasks, then resumes on the connection's owner. */
    private void runTasks() {
        Throwable failure = null;
        try {
            Runnable task;
            while ((task = this.engine.getDelegatedTask()) != null) {
                if (this.dead) {
                    // The connection is gone: its steps (a signature, a certificate check) would be wasted.
                    return;
                }
                task.run();
            }
        }
        catch (RuntimeException | Error ex) {
            failure = ex;
        }
        Throwable thrown = failure;
        this.context.resume(() -> tasksDone(thrown));
    }

    /** The owner again, after the tasks: goes on with the handshake, what arrived, and what was written meanwhile. */
    private void tasksDone(Throwable failure) {
        this.tasksRunning = false;
        this.context.holdInput(false);
        if (this.failed) {
            return;
        }
        if (failure != null) {
            fail(TlsSupport.reason(failure), failure);
            return;
        }
        if (!after(this.engine.getHandshakeStatus())) {
            return;
        }
        ByteBuffer waiting = this.held;
        if (waiting != null) {
            this.held = null;
            waiting.flip();
            unwrap(waiting);
            keep(waiting);
        }
        flushWaitingWrites();
        if (this.hangupAfterTasks && !this.tasksRunning) {
            hangup(this.context);
        }
    }

    /** Holds what is left of {@code src} for later, unless reading ended. */
    private void keep(ByteBuffer src) {
        if (reading()) {
            hold(src);
        }
        src.position(src.limit());
    }

    /** Appends {@code src} to the bytes held, up to {@link #mostHeld()}. */
    private void hold(ByteBuffer src) {
        if (!src.hasRemaining()) {
            return;
        }
        if (((this.held != null) ? this.held.position() : 0) + src.remaining() > mostHeld()) {
            src.position(src.limit());
            fail("protocol", tooMuch());
            return;
        }
        this.held = TlsRecords.append(this.held, src);
    }

    /**
     * @return the most bytes held now: before the handshake ended, what a peer not yet authenticated
     * may make the server hold, unless the engine's tasks run, while the input is held and only the
     * rest of the read at hand arrives
     */
    private int mostHeld() {
        return (this.handshakeDone || this.tasksRunning) ? this.tls.mostHeld : MOST_HELD_HANDSHAKING;
    }

    private SSLException tooMuch() {
        return new SSLException("More than " + mostHeld() + " bytes arrived that could not be unwrapped yet");
    }

    @Override
    public void write(StageContext context, ByteBuffer data) {
        if (this.plaintext || this.awaitingStart) {
            context.write(data);
            return;
        }
        if (!this.failed && this.handshakeDone && !this.tasksRunning && this.waitingWrites == null) {
            wrap(data);
        }
        if (!data.hasRemaining()) {
            return;
        }
        if (this.failed) {
            data.position(data.limit());
            return;
        }
        if (this.waitingWrites == null) {
            this.waitingWrites = new ArrayDeque<>();
        }
        ByteBuffer copy = ByteBuffer.allocate(data.remaining()).put(data);
        this.waitingWrites.addLast(copy.flip());
    }

    private void flushWaitingWrites() {
        ByteBuffer head;
        while (this.waitingWrites != null && !this.tasksRunning && this.handshakeDone && !this.failed
                && (head = this.waitingWrites.peekFirst()) != null) {
            wrap(head);
            if (head.hasRemaining()) {
                return;
            }
            this.waitingWrites.pollFirst();
        }
        if (this.waitingWrites != null && this.waitingWrites.isEmpty()) {
            this.waitingWrites = null;
        }
    }

    @Override
    public void hangup(StageContext context) {
        if (this.plaintext || this.awaitingStart) {
            context.passHangup();
            return;
        }
        if (this.failed) {
            return;
        }
        if (this.tasksRunning) {
            // What arrived before the FIN (a last flight, a request) is unwrapped first.
            this.hangupAfterTasks = true;
        }
        else if (!this.handshakeDone) {
            fail("closed", new SSLHandshakeException("The peer closed the connection during the TLS handshake"));
        }
        else if (!this.hangupPassed) {
            this.hangupPassed = true;
            this.held = null;
            context.passHangup();
        }
    }

    @Override
    void peerClosed() {
        hangup(this.context);
    }

    /** Sends close_notify before the output ends, once the handshake is done. */
    @Override
    public void outputEnding(StageContext context) {
        if (!this.failed && this.handshakeDone && !this.tasksRunning) {
            flushWaitingWrites();
            closeOutbound();
        }
    }

    /**
     * The handshake or the session failed: counted, the peer told with an alert when it can be, and
     * the connection failed once the alert is sent (its handler hears of it only if it was opened: the
     * handshake had succeeded, or began on the handler's request).
     */
    @Override
    void fail(String reason, Throwable cause) {
        if (this.failed) {
            return;
        }
        if (this.renegotiationRefused) {
            SSLHandshakeException refused = new SSLHandshakeException("TLS renegotiation is refused");
            refused.initCause(cause);
            reason = "renegotiation";
            cause = refused;
        }
        if (this.tls.nativeEngines() && cause instanceof SSLException && cause.getCause() != null && cause.getMessage() != null
                && cause.getMessage().startsWith("General OpenSslEngine problem")) {
            // The native engine says so of what a Java trust or key manager refused: name that instead.
            String why = (cause.getCause().getMessage() != null) ? cause.getCause().getMessage() : cause.getCause().toString();
            SSLException named = this.handshakeDone ? new SSLException(why) : new SSLHandshakeException(why);
            named.initCause(cause);
            cause = named;
        }
        this.failed = true;
        this.dead = true;
        this.deadline.cancel();
        if (!this.handshakeDone) {
            report(false, reason);
        }
        else if ("renegotiation".equals(reason)) {
            this.tls.observer.handshake(false, reason, 0);
        }
        if (this.engine != null && !this.tasksRunning && !"closed".equals(reason)) {
            closeOutbound();
        }
        this.held = null;
        this.rest = null;
        this.waitingWrites = null;
        // The alert goes out behind what was queued before the connection closes, as far as the peer takes it.
        this.context.fail(cause);
    }

    private void report(boolean success, @Nullable String reason) {
        if (!this.reported) {
            this.reported = true;
            this.tls.observer.handshake(success, reason, System.nanoTime() - this.started);
        }
    }

    /** The handshake's limit passed: it fails, unless it ended. */
    private void expire() {
        if (!this.handshakeDone && !this.failed) {
            fail("timeout", new SSLHandshakeException("The TLS handshake did not end within " + this.tls.settings.handshakeTimeout()));
        }
    }

    @Override
    public void closed(StageContext context) {
        this.dead = true;
        this.deadline.cancel();
        if (this.engine != null) {
            // A native engine's memory goes with its connection (a JDK engine's with the garbage).
            this.tls.release(this.engine);
        }
        if (this.context != null) {
            report(false, "closed");
        }
        this.held = null;
        this.rest = null;
        this.waitingWrites = null;
    }

    /** @return whether the stage holds a buffer of its own now; for tests of an idle connection */
    public boolean holdsBuffers() {
        return this.held != null || this.rest != null || this.waitingWrites != null;
    }
}
