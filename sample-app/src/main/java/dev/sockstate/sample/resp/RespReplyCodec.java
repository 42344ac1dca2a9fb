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

    /** The least bytes a RESP value takes ({@code +\r\n}). */
    private static final int LEAST_VALUE = 3;

    /** The progress of a call that keeps none: every call parses the reply from its start. */
    private static final Progress FROM_THE_START = new Progress() {

        @Override
        public long saved() {
            return 0;
        }

        @Override
        public void save(long state) {
        }
    };

    @Override
    public long frameLength(ByteBuffer in) throws FramingException {
        return frameLength(in, 0, FROM_THE_START);
    }

    /**
     * Resumes where the calls before left an unfinished reply, so that a reply arriving in many reads
     * costs about what one read would: a line's search for its end after the bytes searched already,
     * an array's parse after its elements found whole (where the next begins and how many are left,
     * saved in the connection's progress), and an unfinished line among them searched on from where
     * the call before left off (saved instead of where it began). While an array is unfinished, the
     * answer is the least length it takes (each element still to come at least 3 bytes), so that the
     * framing asks again only once they may have arrived, and refuses at once an array too long for
     * the frame. (An array within the array is parsed from its start again at such a call, and a long
     * line within it searched from its start: the announced length keeps such calls few.)
     */
    @Override
    public long frameLength(ByteBuffer in, int searched, Progress progress) throws FramingException {
        int start = in.position();
        int limit = in.limit();
        if (start >= limit) {
            return MORE;
        }
        byte type = in.get(start);
        if (type != '*') {
            long end = value(in, start, limit, 0, (type == '$') ? 0 : Math.max(0, searched - 1));
            if (end >= 0) {
                return end - start;
            }
            // A bulk reply announces its length (refused at once when too long for the frame), and is asked
            // again once it arrived, so that its CRLF is checked; a line is searched on after what was seen.
            return (type == '$') ? FrameDecoder.atLeast(leastEnd(end) - start) : MORE;
        }
        long saved = progress.saved();
        int at;
        long left;
        // Where an unfinished line among the elements was searched to, from the reply's start; -1 for none.
        int lineSearched = -1;
        if (saved == 0) {
            int lineEnd = lineEnd(in, start, limit, 0);
            if (lineEnd < 0) {
                return MORE;
            }
            at = lineEnd + 2;
            left = Math.max(0, number(in, start + 1, lineEnd));
        }
        else {
            at = start + (int) ((saved >>> 32) & 0x7fff_ffff);
            left = saved & 0xffff_ffffL;
            if ((saved & IN_LINE) != 0) {
                lineSearched = at - start;
            }
        }
        for (; left > 0; left--) {
            long end;
            boolean line;
            if (lineSearched >= 0) {
                // The line the call before searched up to where its bytes ended: searched on from there.
                line = true;
                end = lineEndAfter(in, start + lineSearched - 1, limit);
                lineSearched = -1;
            }
            else {
                byte elementType = (at < limit) ? in.get(at) : 0;
                line = elementType == '+' || elementType == '-' || elementType == ':';
                end = value(in, at, limit, 1, 0);
            }
            if (end < 0) {
                // An unfinished line is kept as searched to the end of the bytes held, any other element by where it begins.
                progress.save(line ? IN_LINE | ((long) (limit - start) << 32) | left : ((long) (at - start) << 32) | left);
                return FrameDecoder.atLeast(Math.max(limit + 1, leastEnd(end)) + LEAST_VALUE * (left - 1) - start);
            }
            at = (int) end;
        }
        return at - start;
    }

    /** Marks a saved progress whose offset is where an unfinished line was searched to, not where an element begins. */
    private static final long IN_LINE = Long.MIN_VALUE;

    /**
     * @param from where to search from: a line's bytes before it hold no line end
     * @return the index after the line's CRLF, or {@link #incomplete} when it has not arrived
     */
    private static long lineEndAfter(ByteBuffer in, int from, int limit) {
        for (int i = from; i < limit - 1; i++) {
            if (in.get(i) == '\r' && in.get(i + 1) == '\n') {
                return i + 2;
            }
        }
        return incomplete(limit + 1);
    }

    /**
     * @param position where the value starts
     * @param limit where the bytes held end
     * @param depth how deep in arrays the value is, 0 for a whole reply
     * @param scanFrom how many bytes of a line from its start are known to hold no line end
     * @return the index after one value; when it is not whole yet, {@link #incomplete} of the least
     *     index it can end at (a bulk string's end, once its length line is read)
     */
    private static long value(ByteBuffer in, int position, int limit, int depth, int scanFrom) throws FramingException {
        if (position >= limit) {
            return incomplete(position + LEAST_VALUE);
        }
        byte type = in.get(position);
        if (type != '+' && type != '-' && type != ':' && type != '$' && type != '*') {
            // Refused at its first byte: no line of a reply that is not RESP is waited for.
            throw notResp(type);
        }
        int lineEnd = lineEnd(in, position, limit, scanFrom);
        if (lineEnd < 0) {
            return incomplete(Math.max(limit + 1, position + LEAST_VALUE));
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
                    return incomplete(end);
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
                for (long i = 0; i < count; i++) {
                    end = value(in, (int) end, limit, depth + 1, 0);
                    if (end < 0) {
                        return incomplete(leastEnd(end) + LEAST_VALUE * (count - i - 1));
                    }
                }
                return end;
            }
            default -> throw notResp(type);
        }
    }

    /** @return what {@link #value} answers for a value not whole yet that can end at {@code leastEnd} at the soonest */
    private static long incomplete(long leastEnd) {
        return -1 - leastEnd;
    }

    /** @return the least end an {@link #incomplete} answer holds */
    private static long leastEnd(long incomplete) {
        return -1 - incomplete;
    }

    private static FramingException notResp(byte type) {
        return new FramingException("a reply that is not RESP (it begins with byte " + (type & 0xff) + ")");
    }

    private static int lineEnd(ByteBuffer in, int position, int limit, int scanFrom) throws FramingException {
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
            // A status or error line may be long: look on to its end, from where an earlier call left off.
            for (int i = Math.max(scanLimit, position + scanFrom); i < limit - 1; i++) {
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
