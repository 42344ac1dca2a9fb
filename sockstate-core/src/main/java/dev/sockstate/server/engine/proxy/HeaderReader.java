package dev.sockstate.server.engine.proxy;

import dev.sockstate.server.proxy.ProxyHeader;
import dev.sockstate.server.proxy.ProxyProtocol;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Reads a PROXY protocol header from the start of a connection's bytes, version 1 or 2 as the listener
 * accepts, strictly: what the protocol does not allow is refused, never guessed at. Reading an incomplete
 * header asks for more bytes once what is there can still begin a valid header, and refuses it as soon as
 * it cannot (a wrong byte of the signature, a declared length over the limit), so a connection holds at
 * most the longest header it may send and one read.
 */
final class HeaderReader {

    /** The version 1 header's start. */
    static final byte[] V1_SIGNATURE = "PROXY ".getBytes(StandardCharsets.US_ASCII);

    /** The version 2 header's start. */
    static final byte[] V2_SIGNATURE = { 0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A };

    private HeaderReader() {
    }

    /**
     * @param data the connection's first bytes, from position to limit; the position is moved past the
     * header when one is read, and left otherwise
     * @param settings the listener's PROXY protocol
     * @param proxy the socket's peer: the balancer
     * @return the header, a request for more bytes, or a refusal
     */
    static Result read(ByteBuffer data, ProxyProtocol settings, SocketAddress proxy) {
        if (!data.hasRemaining()) {
            return Result.MORE;
        }
        byte first = data.get(data.position());
        ProxyProtocol.Version accepted = settings.version();
        if (first == V1_SIGNATURE[0]) {
            if (accepted == ProxyProtocol.Version.V2) {
                return otherVersion(data, V1_SIGNATURE, "a version 1 header, where only version 2 is accepted");
            }
            return V1Reader.read(data, proxy);
        }
        if (first == V2_SIGNATURE[0]) {
            if (accepted == ProxyProtocol.Version.V1) {
                return otherVersion(data, V2_SIGNATURE, "a version 2 header, where only version 1 is accepted");
            }
            return V2Reader.read(data, settings.maxHeaderSize(), proxy);
        }
        return Result.refused("malformed", "bytes that are no PROXY protocol header (the first is 0x"
                + Integer.toHexString(first & 0xff) + ")");
    }

    /**
     * The start of the version the listener does not take: refused as that version once its whole
     * signature is there, as malformed as soon as it cannot be, and more asked for meanwhile, so that
     * the reason does not hang on how the bytes were cut into reads (at most a signature's length).
     */
    private static Result otherVersion(ByteBuffer data, byte[] signature, String problem) {
        if (!startsLike(data, signature)) {
            return Result.refused("malformed", "bytes that are no PROXY protocol header");
        }
        return (data.remaining() < signature.length) ? Result.MORE : Result.refused("version", problem);
    }

    /**
     * @return whether the bytes at hand match the start of the signature, as far as they go (all of it
     * when there are enough)
     */
    static boolean startsLike(ByteBuffer data, byte[] signature) {
        int length = Math.min(data.remaining(), signature.length);
        for (int i = 0; i < length; i++) {
            if (data.get(data.position() + i) != signature[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * What reading found.
     * @param header the header, when one was read
     * @param reason why it was refused, one word: {@code malformed}, {@code version}, {@code oversized}
     * @param problem what was wrong, after "the peer sent"
     */
    record Result(@Nullable ProxyHeader header, @Nullable String reason, @Nullable String problem) {

        /** More bytes are needed. */
        static final Result MORE = new Result(null, null, null);

        static Result of(ProxyHeader header) {
            return new Result(header, null, null);
        }

        static Result refused(String reason, String problem) {
            return new Result(null, reason, problem);
        }

        boolean needsMore() {
            return this.header == null && this.reason == null;
        }
    }
}
