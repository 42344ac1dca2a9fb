package dev.sockstate.sample.resp;

import dev.sockstate.server.framing.FrameDecoder;
import dev.sockstate.server.framing.FramingException;
import java.nio.ByteBuffer;

/**
 * RESP2 replies as frames, for the {@code redis} client's custom framing: one whole reply a frame,
 * whatever its type (a simple string, an error, an integer, a bulk string, an array of any of these,
 * nested), so that each reply completes the request it answers. A reply that is not RESP fails the
 * connection it came on, as any bad frame does.
 */
public final class RespReplyCodec implements FrameDecoder {

    /** Arrays nested deeper than this are refused. */
    private static final int MAX_DEPTH = 32;

    private static final int MAX_HEADER = 32;

    @Override
    public long frameLength(ByteBuffer in) throws FramingException {
        long end = value(in, in.position(), in.limit(), 0);
        return (end < 0) ? MORE : end - in.position();
    }

    /**
     * @return the index after one value, or -1 when it is not whole yet; a bulk string's end as soon as
     * its length line is read, when it is not within an array, so that one too large for the frame is
     * refused before its bytes are buffered
     */
    private static long value(ByteBuffer in, int position, int limit, int depth) throws FramingException {
        if (position >= limit) {
            return -1;
        }
        byte type = in.get(position);
        if (type != '+' && type != '-' && type != ':' && type != '$' && type != '*') {
            // Refused at its first byte: no line of a reply that is not RESP is waited for.
            throw notResp(type);
        }
        int lineEnd = lineEnd(in, position, limit);
        if (lineEnd < 0) {
            return -1;
        }
        int next = lineEnd + 2;
        switch (type) {
            case '+', '-', ':' -> {
                return next;
            }
            case '$' -> {
                long length = number(in, position + 1, lineEnd);
                if (length < 0) {
                    return next;
                }
                long end = next + length + 2;
                if (end > limit) {
                    return (depth == 0) ? end : -1;
                }
                if (in.get((int) end - 2) != '\r' || in.get((int) end - 1) != '\n') {
                    throw new FramingException("a bulk reply not ended by CRLF");
                }
                return end;
            }
            case '*' -> {
                if (depth >= MAX_DEPTH) {
                    throw new FramingException("arrays nested deeper than " + MAX_DEPTH);
                }
                long count = number(in, position + 1, lineEnd);
                long end = next;
                for (long i = 0; i < count && end >= 0; i++) {
                    end = value(in, (int) end, limit, depth + 1);
                }
                return end;
            }
            default -> throw notResp(type);
        }
    }

    private static FramingException notResp(byte type) {
        return new FramingException("a reply that is not RESP (it begins with byte " + (type & 0xff) + ")");
    }

    private static int lineEnd(ByteBuffer in, int position, int limit) throws FramingException {
        int scanLimit = Math.min(limit - 1, position + MAX_HEADER);
        for (int i = position; i < scanLimit; i++) {
            if (in.get(i) == '\r' && in.get(i + 1) == '\n') {
                return i;
            }
        }
        byte type = in.get(position);
        if (limit - position > MAX_HEADER && (type == '$' || type == '*')) {
            throw new FramingException("a reply's length line too long");
        }
        if (type == '+' || type == '-' || type == ':') {
            // A status or error line may be long: look on to its end.
            for (int i = scanLimit; i < limit - 1; i++) {
                if (in.get(i) == '\r' && in.get(i + 1) == '\n') {
                    return i;
                }
            }
        }
        return -1;
    }

    private static long number(ByteBuffer in, int start, int end) throws FramingException {
        boolean negative = start < end && in.get(start) == '-';
        int i = negative ? start + 1 : start;
        if (i == end) {
            throw new FramingException("a reply with an empty length");
        }
        long value = 0;
        for (; i < end; i++) {
            int digit = in.get(i) - '0';
            if (digit < 0 || digit > 9 || value > Integer.MAX_VALUE) {
                throw new FramingException("a reply with a bad length");
            }
            value = value * 10 + digit;
        }
        if (value > Integer.MAX_VALUE) {
            throw new FramingException("a reply with a bad length");
        }
        return negative ? -value : value;
    }

    @Override
    public String toString() {
        return "RESP2 replies";
    }
}
