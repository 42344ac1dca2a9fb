package dev.sockstate.server.engine.proxy;

import dev.sockstate.server.Stage;
import dev.sockstate.server.StageContext;
import dev.sockstate.server.engine.proxy.HeaderReader.Result;
import dev.sockstate.server.proxy.ProxyHeader;
import dev.sockstate.server.proxy.ProxyHeaderException;
import dev.sockstate.server.proxy.ProxyProtocol;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * The first stage of a connection of a listener behind a load balancer: reads the PROXY protocol header
 * before any other stage sees a byte ({@link ProxyProtocol}).
 * <p>
 * A peer the listener trusts must send a header: the open is held back until the header is whole,
 * then passed on with the connection's peer set to the client, and the bytes that followed the header
 * in the same read passed on after it. A peer it does not trust is served at once as a direct client;
 * only if its first bytes begin a header is it refused (bytes that merely could begin one are passed on
 * once they differ, or once the header's time is up). Either way, until it is known, the start of the
 * stream is kept (at most the longest header and one read) and read again as more arrives. A refusal
 * (malformed, another version, oversized, untrusted, timeout) closes the connection, counted by reason;
 * a connection that ends before its header (the peer left, or the server stopped) is counted as {@code closed}.
 */
public final class ProxyStage implements Stage {

    private static final int EXPECTING = 0;

    private static final int SNIFFING = 1;

    private static final int PASSING = 2;

    private static final int REFUSED = 3;

    private final ProxySupport support;


    /** The header's limit while it is awaited (or a direct client's first bytes could still begin one); cancelled once known. */
    private StageContext.Deadline deadline = StageContext.Deadline.NONE;

    private int state = EXPECTING;

    private @Nullable SocketAddress peer;

    /** The stream's start while it is not known yet, {@code null} when none is kept. */
    private byte @Nullable [] held;

    private int heldLength;

    private @Nullable StageContext context;

    /** @param support what the listener's PROXY protocol stages share */
    public ProxyStage(ProxySupport support) {
        this.support = support;
    }

    @Override
    public void open(StageContext context) {
        this.context = context;
        try {
            this.peer = context.connection().remoteAddress();
        }
        catch (UncheckedIOException ex) {
            // Reset before its first turn (no peer to ask for): nothing to serve, counted as closed as the stage closes.
            context.close();
            return;
        }
        if (trusted(this.peer)) {
            this.deadline = context.deadline(this.support.settings.headerTimeout(), this::expire);
        }
        else {
            this.state = SNIFFING;
            context.passOpen();
        }
    }

    /** A peer of a Unix domain socket is trusted: who may connect is the socket file's permissions' say. */
    private boolean trusted(SocketAddress peer) {
        return !(peer instanceof InetSocketAddress inet) || this.support.settings.trusts(inet.getAddress());
    }

    @Override
    public void data(StageContext context, ByteBuffer data) {
        if (this.state == PASSING) {
            context.passData(data);
            return;
        }
        if (this.state == REFUSED) {
            data.position(data.limit());
            return;
        }
        ByteBuffer input = data;
        if (this.held != null) {
            input = hold(data);
        }
        if (this.state == EXPECTING) {
            expect(context, input);
        }
        else {
            sniff(context, input);
        }
        if ((this.state == EXPECTING || this.state == SNIFFING) && input == data && data.hasRemaining()) {
            // Not known yet from this read alone: its bytes are kept for the next.
            hold(data);
        }
    }

    private void expect(StageContext context, ByteBuffer input) {
        Result result = HeaderReader.read(input, this.support.settings, this.peer);
        if (result.needsMore()) {
            return;
        }
        if (result.header() == null) {
            refuse(context, result.reason(), result.problem());
            return;
        }
        this.state = PASSING;
        this.held = null;
        this.deadline.cancel();
        ProxyHeader header = result.header();
        this.support.observer.proxyHeader(true, null);
        if (this.support.admission != null && header.relaysClient() && header.source() instanceof InetSocketAddress client
                && !this.support.admission.test(context.connection(), client.getAddress())) {
            // Refused by the listener's rules for the client it names: closed before anything above sees a byte.
            this.state = REFUSED;
            context.close();
            return;
        }
        // On an IP listener only an IP client can be the peer (a handler may take an InetSocketAddress);
        // on a Unix domain socket, a relayed client of any family.
        if (header.relaysClient() && (header.source() instanceof InetSocketAddress || !(header.proxyAddress() instanceof InetSocketAddress))) {
            context.peerAddress(header.source());
        }
        context.publish(ProxyHeader.class, header);
        context.passOpen();
        if (input.hasRemaining()) {
            context.passData(input);
        }
    }

    private void sniff(StageContext context, ByteBuffer input) {
        ProxyProtocol.Version version = this.support.settings.version();
        boolean v1 = version != ProxyProtocol.Version.V2 && HeaderReader.startsLike(input, HeaderReader.V1_SIGNATURE);
        boolean v2 = version != ProxyProtocol.Version.V1 && HeaderReader.startsLike(input, HeaderReader.V2_SIGNATURE);
        if ((v1 && input.remaining() >= HeaderReader.V1_SIGNATURE.length) || (v2 && input.remaining() >= HeaderReader.V2_SIGNATURE.length)) {
            refuse(context, "untrusted", "a PROXY protocol header from " + ((InetSocketAddress) this.peer).getAddress().getHostAddress()
                    + ", which is none of the listener's trusted proxies " + this.support.settings.trustedProxies());
            return;
        }
        if (v1 || v2) {
            // Could still begin a header: kept until it can tell, or until the header's time is up.
            if (this.deadline == StageContext.Deadline.NONE) {
                this.deadline = context.deadline(this.support.settings.headerTimeout(), this::expire);
            }
            return;
        }
        this.state = PASSING;
        this.held = null;
        this.deadline.cancel();
        context.passData(input);
    }

    /** Appends the read to what is kept; @return what is kept, to be read from its start */
    private ByteBuffer hold(ByteBuffer data) {
        int room = (this.held == null) ? 0 : this.held.length;
        int needed = this.heldLength + data.remaining();
        if (needed > room) {
            byte[] grown = new byte[Math.max(needed, Math.min(2 * room, this.support.settings.maxHeaderSize()))];
            if (this.held != null) {
                System.arraycopy(this.held, 0, grown, 0, this.heldLength);
            }
            this.held = grown;
        }
        int length = data.remaining();
        data.get(this.held, this.heldLength, length);
        this.heldLength += length;
        return ByteBuffer.wrap(this.held, 0, this.heldLength);
    }

    @Override
    public void hangup(StageContext context) {
        if (this.state == EXPECTING) {
            // The peer left before its header was whole: nothing to serve. Counted as the stage closes.
            context.close();
            return;
        }
        if (this.state == SNIFFING && this.held != null) {
            this.state = PASSING;
            ByteBuffer rest = ByteBuffer.wrap(this.held, 0, this.heldLength);
            this.held = null;
            context.passData(rest);
        }
        if (this.state != REFUSED) {
            context.passHangup();
        }
    }

    @Override
    public void closed(StageContext context) {
        if (this.state == EXPECTING) {
            this.support.observer.proxyHeader(false, "closed");
        }
        this.state = REFUSED;
        this.deadline.cancel();
        this.held = null;
    }

    /** The header's limit passed: a header awaited is refused, a direct client's first bytes kept are its own. */
    private void expire() {
        if (this.state == EXPECTING) {
            refuse(this.context, "timeout", "no whole PROXY protocol header within " + this.support.settings.headerTimeout()
                    + " (" + this.heldLength + " bytes of it)");
        }
        else if (this.state == SNIFFING && this.held != null) {
            // A direct client's first bytes that began like a header and stopped there: they were its own.
            this.state = PASSING;
            ByteBuffer rest = ByteBuffer.wrap(this.held, 0, this.heldLength);
            this.held = null;
            this.context.passData(rest);
        }
    }

    private void refuse(StageContext context, String reason, String problem) {
        this.state = REFUSED;
        this.held = null;
        this.deadline.cancel();
        this.support.observer.proxyHeader(false, reason);
        String message = context.connection() + " sent " + problem + "; closing it";
        this.support.refusals.accept(message);
        context.abort(new ProxyHeaderException(reason, message));
    }
}
