package dev.sockstate.sample.resp;

import dev.sockstate.server.framing.FrameDecoder;
import dev.sockstate.server.framing.FramingException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * RESP2 requests as frames, for the listener's custom framing: multibulk requests
 * ({@code *2\r\n$3\r\nGET\r\n$1\r\nk\r\n}) and inline ones ({@code GET k\r\n}). The runtime keeps an
 * unfinished request until it is whole, so the handler gets one whole request a call, however the
 * bytes arrive. Replies are written as RESP by the handler, so there is no encoder. Malformed and
 * oversized requests are refused as Redis refuses them, before their bytes are buffered.
 */
public final class RespCodec implements FrameDecoder {

    /** Largest bulk argument, as Redis's proto-max-bulk-len (smaller here: this is a sample). */
    public static final int MAX_BULK = 1024 * 1024;

    /** Most arguments in one request. */
    public static final int MAX_ARGUMENTS = 1024;

    /** Longest inline request. */
    public static final int MAX_INLINE = 64 * 1024;

    /** Longest request: a largest bulk argument and room for the rest; the listener's max-frame-size. */
    public static final int MAX_REQUEST = MAX_BULK + 64 * 1024;

    private static final int MAX_HEADER = 32;

    @Override
    public long frameLength(ByteBuffer in) throws FramingException {
        int end = parse(in, in.position(), in.limit(), null);
        return (end < 0) ? MORE : end - in.position();
    }

    /**
     * Resumes where the calls before left an unfinished request: an inline request's search for its
     * line end after the bytes searched already, a multibulk request's parse after the arguments found
     * whole (their count, how many, and where the next begins, saved in the connection's progress), so
     * that a request arriving in many reads costs about what one read would.
     */
    @Override
    public long frameLength(ByteBuffer in, int searched, Progress progress) throws FramingException {
        int position = in.position();
        int limit = in.limit();
        if (position >= limit) {
            return MORE;
        }
        if (in.get(position) != '*') {
            int end = inlineEnd(in, position, limit, searched);
            return (end < 0) ? MORE : end - position;
        }
        long saved = progress.saved();
        int count;
        int done;
        int next;
        if (saved == 0) {
            int lineEnd = lineEnd(in, position, limit);
            if (lineEnd < 0) {
                return MORE;
            }
            long declared = number(in, position + 1, lineEnd, "invalid multibulk length");
            if (declared > MAX_ARGUMENTS) {
                throw new FramingException("invalid multibulk length");
            }
            count = (int) Math.max(0, declared);
            done = 0;
            next = lineEnd + 2;
        }
        else {
            count = (int) (saved >>> 48);
            done = (int) (saved >>> 32) & 0xffff;
            next = position + (int) saved;
        }
        for (; done < count; done++) {
            int after = argumentEnd(in, next, limit, null);
            if (after < 0) {
                progress.save(((long) count << 48) | ((long) done << 32) | (next - position));
                // With the bulk's header read, the request reaches at least the bulk's end: asked again once it is there.
                return (after < -1) ? FrameDecoder.atLeast(-after - position) : MORE;
            }
            next = after;
        }
        return next - position;
    }

    /**
     * @param request one whole request, as {@link #frameLength} found it
     * @return its arguments, the command's name first; none for an empty request
     * @throws FramingException for an inline request Redis refuses as it splits its line (unbalanced
     * quotes, too many arguments): the handler answers it in its turn, as Redis does; never for a
     * multibulk request this codec framed
     */
    public static List<byte[]> arguments(ByteBuffer request) throws FramingException {
        List<byte[]> arguments = new ArrayList<>();
        parse(request, request.position(), request.limit(), arguments);
        return arguments;
    }

    /**
     * @param request one whole request, as {@link #frameLength} found it; its position is not moved
     * @return its command's name in upper case, without reading the other arguments; {@code null} for an empty request
     */
    public static String commandName(ByteBuffer request) {
        long bounds = commandBounds(request);
        if (bounds < 0) {
            return null;
        }
        int start = (int) (bounds >>> 32);
        int end = (int) bounds;
        char[] name = new char[end - start];
        for (int i = start; i < end; i++) {
            name[i - start] = Character.toUpperCase((char) (request.get(i) & 0xff));
        }
        return new String(name);
    }

    /**
     * Where the request's command name lies, found as {@link #commandName} finds it, without making a string.
     * @param request one whole request, from position to limit
     * @return the name's first index in the high 32 bits and its end in the low 32, or -1 when it has none
     */
    public static long commandBounds(ByteBuffer request) {
        int position = request.position();
        int limit = request.limit();
        int start;
        int end;
        if (position < limit && request.get(position) == '*') {
            int dollar = indexOf(request, '$', position, limit);
            int lineEnd = (dollar < 0) ? -1 : indexOf(request, '\r', dollar, limit);
            if (lineEnd < 0) {
                return -1;
            }
            int length = 0;
            for (int i = dollar + 1; i < lineEnd; i++) {
                length = length * 10 + (request.get(i) - '0');
            }
            start = lineEnd + 2;
            end = Math.min(limit, start + length);
        }
        else {
            start = position;
            while (start < limit && (request.get(start) == ' ' || request.get(start) == '\t')) {
                start++;
            }
            end = start;
            while (end < limit && request.get(end) != ' ' && request.get(end) != '\t' && request.get(end) != '\r'
                    && request.get(end) != '\n') {
                end++;
            }
        }
        return (end <= start) ? -1 : ((long) start << 32) | end;
    }

    private static int indexOf(ByteBuffer in, char wanted, int from, int limit) {
        for (int i = from; i < limit; i++) {
            if (in.get(i) == wanted) {
                return i;
            }
        }
        return -1;
    }

    /** @return the index after one request, or -1 when it is not whole yet; fills the arguments if given */
    private static int parse(ByteBuffer in, int position, int limit, List<byte[]> arguments) throws FramingException {
        if (position >= limit) {
            return -1;
        }
        if (in.get(position) != '*') {
            return parseInline(in, position, limit, arguments);
        }
        int lineEnd = lineEnd(in, position, limit);
        if (lineEnd < 0) {
            return -1;
        }
        long count = number(in, position + 1, lineEnd, "invalid multibulk length");
        int next = lineEnd + 2;
        if (count <= 0) {
            return next;
        }
        if (count > MAX_ARGUMENTS) {
            throw new FramingException("invalid multibulk length");
        }
        for (int i = 0; i < count; i++) {
            next = argumentEnd(in, next, limit, arguments);
            if (next < 0) {
                return -1;
            }
        }
        return next;
    }

    /**
     * @param next where a bulk argument begins
     * @return the index after it; -1 when its header is not whole yet, or minus the index after it when
     * its header is and its body not; adds it to the arguments if given
     */
    private static int argumentEnd(ByteBuffer in, int next, int limit, List<byte[]> arguments) throws FramingException {
        if (next >= limit) {
            return -1;
        }
        if (in.get(next) != '$') {
            throw new FramingException("expected '$', got '" + printable(in.get(next)) + "'");
        }
        int lineEnd = lineEnd(in, next, limit);
        if (lineEnd < 0) {
            return -1;
        }
        long length = number(in, next + 1, lineEnd, "invalid bulk length");
        if (length < 0 || length > MAX_BULK) {
            throw new FramingException("invalid bulk length");
        }
        int start = lineEnd + 2;
        if (start + length + 2 > limit) {
            return (int) -(start + length + 2);
        }
        int end = start + (int) length;
        if (in.get(end) != '\r' || in.get(end + 1) != '\n') {
            throw new FramingException("bulk string not terminated by CRLF");
        }
        if (arguments != null) {
            arguments.add(bytes(in, start, end));
        }
        return end + 2;
    }

    private static int parseInline(ByteBuffer in, int position, int limit, List<byte[]> arguments) throws FramingException {
        int newline = inlineEnd(in, position, limit, 0);
        if (newline < 0) {
            return -1;
        }
        if (arguments != null) {
            int end = (newline - 1 > position && in.get(newline - 2) == '\r') ? newline - 2 : newline - 1;
            splitArguments(in, position, end, arguments);
        }
        return newline;
    }

    /**
     * @param searched how many bytes from the position were looked at before and held no line feed
     * @return the index after an inline request's line feed, or -1 when it did not arrive yet
     * @throws FramingException when the line is longer than an inline request may be
     */
    private static int inlineEnd(ByteBuffer in, int position, int limit, int searched) throws FramingException {
        int scanLimit = Math.min(limit, position + MAX_INLINE + 2);
        for (int i = position + Math.max(0, searched); i < scanLimit; i++) {
            if (in.get(i) == '\n') {
                return i + 1;
            }
        }
        if (limit - position > MAX_INLINE) {
            throw new FramingException("too big inline request");
        }
        return -1;
    }

    /**
     * Splits an inline request's line into its arguments as Redis does ({@code sdssplitargs}), so that
     * what is read here is what the server reads: blanks ({@code isspace}: space, tab, CR, LF, VT, FF)
     * between arguments; double quotes with the escapes {@code \xHH \n \r \t \b \a} and any other
     * character escaped as itself; single quotes with {@code \'}; a quote may start within an argument;
     * a closing quote must be followed by a blank or the end; a NUL ends the line.
     */
    private static void splitArguments(ByteBuffer in, int position, int end, List<byte[]> arguments) throws FramingException {
        int p = position;
        while (true) {
            while (p < end && in.get(p) != 0 && isSpace(in.get(p))) {
                p++;
            }
            if (p >= end || in.get(p) == 0) {
                return;
            }
            java.io.ByteArrayOutputStream current = new java.io.ByteArrayOutputStream();
            boolean inDouble = false;
            boolean inSingle = false;
            boolean done = false;
            while (!done) {
                int c = (p < end) ? in.get(p) & 0xff : 0;
                if (inDouble) {
                    if (c == '\\' && p + 3 < end && in.get(p + 1) == 'x' && isHex(in.get(p + 2)) && isHex(in.get(p + 3))) {
                        current.write(Character.digit(in.get(p + 2), 16) * 16 + Character.digit(in.get(p + 3), 16));
                        p += 3;
                    }
                    else if (c == '\\' && p + 1 < end && in.get(p + 1) != 0) {
                        p++;
                        int escaped = in.get(p) & 0xff;
                        current.write(switch (escaped) {
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case 't' -> '\t';
                            case 'b' -> '\b';
                            case 'a' -> 7;
                            default -> escaped;
                        });
                    }
                    else if (c == '"' || c == 0) {
                        done = closesQuote(in, p, end, c);
                    }
                    else {
                        current.write(c);
                    }
                }
                else if (inSingle) {
                    if (c == '\\' && p + 1 < end && in.get(p + 1) == '\'') {
                        p++;
                        current.write('\'');
                    }
                    else if (c == '\'' || c == 0) {
                        done = closesQuote(in, p, end, c);
                    }
                    else {
                        current.write(c);
                    }
                }
                else {
                    switch (c) {
                        case ' ', '\n', '\r', '\t', 0 -> done = true;
                        case '"' -> inDouble = true;
                        case '\'' -> inSingle = true;
                        default -> current.write(c);
                    }
                }
                if (c != 0) {
                    p++;
                }
            }
            if (arguments.size() == MAX_ARGUMENTS) {
                throw new FramingException("too many arguments in inline request");
            }
            arguments.add(current.toByteArray());
        }
    }

    /**
     * @param c the byte at {@code p}: a closing quote, or 0 for the line's end within quotes
     * @return true: the quote closes its argument
     * @throws FramingException when the line ends within the quotes, or the quote is followed by
     * something other than a blank or the end, as Redis refuses both
     */
    private static boolean closesQuote(ByteBuffer in, int p, int end, int c) throws FramingException {
        if (c == 0 || p + 1 < end && in.get(p + 1) != 0 && !isSpace(in.get(p + 1))) {
            throw new FramingException("unbalanced quotes in request");
        }
        return true;
    }

    /** @return whether the byte is a blank as C's {@code isspace} says in the C locale */
    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == 0x0b || b == '\f';
    }

    private static boolean isHex(byte b) {
        return Character.digit(b, 16) >= 0;
    }

    /**
     * @param request one whole inline request
     * @return whether its line holds only printable ASCII other than quotes, and spaces and tabs: then
     * splitting it at the spaces and tabs reads what Redis reads, and it may be passed on as it is
     */
    public static boolean plainInline(ByteBuffer request) {
        int end = request.limit();
        if (end > request.position() && request.get(end - 1) == '\n') {
            end--;
        }
        if (end > request.position() && request.get(end - 1) == '\r') {
            end--;
        }
        for (int i = request.position(); i < end; i++) {
            byte b = request.get(i);
            if (b != ' ' && b != '\t' && (b < 0x21 || b > 0x7e || b == '"' || b == '\'')) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param arguments a request's arguments, the command's name first
     * @return the request as a multibulk, as Redis reads it whatever it arrived as
     */
    public static ByteBuffer multibulk(List<byte[]> arguments) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] count = ("*" + arguments.size() + "\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        out.write(count, 0, count.length);
        for (byte[] argument : arguments) {
            byte[] length = ("$" + argument.length + "\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            out.write(length, 0, length.length);
            out.write(argument, 0, argument.length);
            out.write('\r');
            out.write('\n');
        }
        return ByteBuffer.wrap(out.toByteArray());
    }

    /** @return the index of the CR of the CRLF ending the line at {@code position}, or -1 if not there yet */
    private static int lineEnd(ByteBuffer in, int position, int limit) throws FramingException {
        int scanLimit = Math.min(limit - 1, position + MAX_HEADER);
        for (int i = position; i < scanLimit; i++) {
            if (in.get(i) == '\r' && in.get(i + 1) == '\n') {
                return i;
            }
        }
        if (limit - position > MAX_HEADER) {
            throw new FramingException("header line too long");
        }
        return -1;
    }

    private static long number(ByteBuffer in, int start, int end, String error) throws FramingException {
        if (start == end) {
            throw new FramingException(error);
        }
        boolean negative = in.get(start) == '-';
        int i = negative ? start + 1 : start;
        if (i == end) {
            throw new FramingException(error);
        }
        // As Redis reads numbers: no leading zero ("04"), no negative zero.
        if (in.get(i) == '0' && (end - i > 1 || negative)) {
            throw new FramingException(error);
        }
        long value = 0;
        for (; i < end; i++) {
            int digit = in.get(i) - '0';
            if (digit < 0 || digit > 9 || value > Integer.MAX_VALUE) {
                throw new FramingException(error);
            }
            value = value * 10 + digit;
        }
        return negative ? -value : value;
    }

    private static byte[] bytes(ByteBuffer in, int start, int end) {
        byte[] bytes = new byte[end - start];
        in.get(start, bytes);
        return bytes;
    }

    private static String printable(byte value) {
        return (value >= 32 && value < 127) ? String.valueOf((char) value) : String.format("\\x%02x", value & 0xff);
    }

    @Override
    public String toString() {
        return "RESP2 requests";
    }
}
