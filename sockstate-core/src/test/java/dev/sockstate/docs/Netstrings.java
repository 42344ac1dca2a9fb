package dev.sockstate.docs;

// tag::netstrings[]
import dev.sockstate.server.framing.FrameDecoder;
import dev.sockstate.server.framing.FrameEncoder;
import dev.sockstate.server.framing.FramingException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Netstrings: a decimal length, a colon, that many bytes and a comma ({@code 5:hello,}). Stateless:
 * one instance frames every connection of a listener.
 */
public final class Netstrings implements FrameDecoder, FrameEncoder {

    /** Ten digits at most, so that a peer cannot make the header itself long. */
    private static final int MOST_DIGITS = 10;

    @Override
    public long frameLength(ByteBuffer in) throws FramingException {
        long length = 0;
        for (int i = in.position(), digits = 0; i < in.limit(); i++, digits++) {
            byte b = in.get(i);
            if (b == ':' && digits > 0) {
                long frame = digits + 1 + length + 1;
                if (in.remaining() < frame) {
                    // Asked again only once the whole frame is here; one over max-frame-size is refused now.
                    return FrameDecoder.atLeast(frame);
                }
                if (in.get(in.position() + (int) frame - 1) != ',') {
                    throw new FramingException("a netstring ends with ','");
                }
                return frame;
            }
            if (b < '0' || b > '9' || digits == MOST_DIGITS) {
                throw new FramingException("a netstring starts with its length, at most " + MOST_DIGITS + " digits, and ':'");
            }
            length = length * 10 + (b - '0');
        }
        return MORE;
    }

    @Override
    public int headerLength(ByteBuffer frame) {
        int colon = frame.position();
        while (frame.get(colon) != ':') {
            colon++;
        }
        return colon - frame.position() + 1;
    }

    @Override
    public int trailerLength(ByteBuffer frame) {
        return 1;
    }

    @Override
    public int overhead(int contentLength) {
        return Integer.toString(contentLength).length() + 2;
    }

    @Override
    public void encode(ByteBuffer content, ByteBuffer out) {
        out.put((content.remaining() + ":").getBytes(StandardCharsets.US_ASCII)).put(content).put((byte) ',');
    }
}
// end::netstrings[]
