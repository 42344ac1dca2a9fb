package dev.sockstate.sample.resp;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An incremental RESP2 request parser for one connection: multibulk requests ({@code *2\r\n$3\r\nGET\r\n$1\r\nk\r\n})
 * and inline ones ({@code GET k\r\n}), several per read (pipelining), split anywhere across reads.
 * Bytes of an unfinished request wait in a buffer that exists only while a request is unfinished
 * and never grows past {@link #MAX_PENDING}; anything larger is a protocol error.
 */
public final class RespParser {

    /** Largest bulk argument, as Redis's proto-max-bulk-len (smaller here: this is a sample). */
    public static final int MAX_BULK = 1024 * 1024;

    /** Most arguments in one request. */
    public static final int MAX_ARGUMENTS = 1024;

    /** Longest inline request. */
    public static final int MAX_INLINE = 64 * 1024;

    /** Most bytes an unfinished request may hold. */
    public static final int MAX_PENDING = MAX_BULK + 64 * 1024;

    private static final int MAX_HEADER = 32;

    private byte[] pending;

    private int pendingLength;

    /** Receives each complete request. */
    @FunctionalInterface
    public interface RequestSink {

        /**
         * @param arguments the request: command name first
         * @return false to stop parsing (the connection is closing)
         */
        boolean request(List<byte[]> arguments);
    }

    /**
     * Parses what arrived, handing every complete request to the sink in order.
     * @param data the bytes read, consumed
     * @param sink where requests go
     * @throws RespProtocolException when the bytes are not RESP, or too large
     */
    public void feed(ByteBuffer data, RequestSink sink) throws RespProtocolException {
        byte[] buffer;
        int limit;
        if (this.pending == null) {
            buffer = new byte[data.remaining()];
            data.get(buffer);
            limit = buffer.length;
        }
        else {
            append(data);
            buffer = this.pending;
            limit = this.pendingLength;
        }
        int position = 0;
        List<byte[]> arguments = new ArrayList<>();
        while (position < limit) {
            arguments.clear();
            int next = parse(buffer, position, limit, arguments);
            if (next < 0) {
                break;
            }
            position = next;
            if (!arguments.isEmpty() && !sink.request(arguments)) {
                this.pending = null;
                this.pendingLength = 0;
                return;
            }
        }
        keep(buffer, position, limit);
    }

    /** @return whether an unfinished request waits for more bytes */
    public boolean hasPending() {
        return this.pending != null;
    }

    private void append(ByteBuffer data) throws RespProtocolException {
        int needed = this.pendingLength + data.remaining();
        if (needed > MAX_PENDING) {
            throw new RespProtocolException("request too large");
        }
        if (needed > this.pending.length) {
            this.pending = Arrays.copyOf(this.pending, Math.min(MAX_PENDING, Math.max(needed, this.pending.length * 2)));
        }
        data.get(this.pending, this.pendingLength, data.remaining());
        this.pendingLength = needed;
    }

    private void keep(byte[] buffer, int position, int limit) throws RespProtocolException {
        int left = limit - position;
        if (left == 0) {
            this.pending = null;
            this.pendingLength = 0;
            return;
        }
        if (left > MAX_PENDING) {
            throw new RespProtocolException("request too large");
        }
        if (buffer == this.pending) {
            System.arraycopy(buffer, position, buffer, 0, left);
        }
        else {
            this.pending = Arrays.copyOfRange(buffer, position, Math.max(limit, position + 64));
        }
        this.pendingLength = left;
    }

    /** @return the position after one request, or -1 when it is not complete yet */
    private static int parse(byte[] buffer, int position, int limit, List<byte[]> arguments) throws RespProtocolException {
        if (buffer[position] != '*') {
            return parseInline(buffer, position, limit, arguments);
        }
        int lineEnd = lineEnd(buffer, position, limit);
        if (lineEnd < 0) {
            return -1;
        }
        long count = number(buffer, position + 1, lineEnd, "invalid multibulk length");
        int next = lineEnd + 2;
        if (count <= 0) {
            return next;
        }
        if (count > MAX_ARGUMENTS) {
            throw new RespProtocolException("invalid multibulk length");
        }
        for (int i = 0; i < count; i++) {
            if (next >= limit) {
                return -1;
            }
            if (buffer[next] != '$') {
                throw new RespProtocolException("expected '$', got '" + printable(buffer[next]) + "'");
            }
            lineEnd = lineEnd(buffer, next, limit);
            if (lineEnd < 0) {
                return -1;
            }
            long length = number(buffer, next + 1, lineEnd, "invalid bulk length");
            if (length < 0 || length > MAX_BULK) {
                throw new RespProtocolException("invalid bulk length");
            }
            int start = lineEnd + 2;
            if (start + length + 2 > limit) {
                return -1;
            }
            int end = start + (int) length;
            if (buffer[end] != '\r' || buffer[end + 1] != '\n') {
                throw new RespProtocolException("bulk string not terminated by CRLF");
            }
            arguments.add(Arrays.copyOfRange(buffer, start, end));
            next = end + 2;
        }
        return next;
    }

    private static int parseInline(byte[] buffer, int position, int limit, List<byte[]> arguments) throws RespProtocolException {
        int newline = -1;
        int scanLimit = Math.min(limit, position + MAX_INLINE + 2);
        for (int i = position; i < scanLimit; i++) {
            if (buffer[i] == '\n') {
                newline = i;
                break;
            }
        }
        if (newline < 0) {
            if (limit - position > MAX_INLINE) {
                throw new RespProtocolException("too big inline request");
            }
            return -1;
        }
        int end = (newline > position && buffer[newline - 1] == '\r') ? newline - 1 : newline;
        int start = position;
        for (int i = position; i <= end; i++) {
            if (i == end || buffer[i] == ' ' || buffer[i] == '\t') {
                if (i > start) {
                    if (arguments.size() == MAX_ARGUMENTS) {
                        throw new RespProtocolException("too many arguments in inline request");
                    }
                    arguments.add(Arrays.copyOfRange(buffer, start, i));
                }
                start = i + 1;
            }
        }
        return newline + 1;
    }

    /** @return the index of the CR of the CRLF ending the line at {@code position}, or -1 if not there yet */
    private static int lineEnd(byte[] buffer, int position, int limit) throws RespProtocolException {
        int scanLimit = Math.min(limit - 1, position + MAX_HEADER);
        for (int i = position; i < scanLimit; i++) {
            if (buffer[i] == '\r' && buffer[i + 1] == '\n') {
                return i;
            }
        }
        if (limit - position > MAX_HEADER) {
            throw new RespProtocolException("header line too long");
        }
        return -1;
    }

    private static long number(byte[] buffer, int start, int end, String error) throws RespProtocolException {
        if (start == end) {
            throw new RespProtocolException(error);
        }
        boolean negative = buffer[start] == '-';
        int i = negative ? start + 1 : start;
        if (i == end) {
            throw new RespProtocolException(error);
        }
        long value = 0;
        for (; i < end; i++) {
            int digit = buffer[i] - '0';
            if (digit < 0 || digit > 9 || value > Integer.MAX_VALUE) {
                throw new RespProtocolException(error);
            }
            value = value * 10 + digit;
        }
        return negative ? -value : value;
    }

    private static String printable(byte value) {
        return (value >= 32 && value < 127) ? String.valueOf((char) value) : String.format("\\x%02x", value & 0xff);
    }
}
