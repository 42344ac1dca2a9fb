package dev.sockstate.server.framing;

import java.nio.ByteBuffer;

/**
 * RFC 6587 octet counting, as syslog over TCP uses it: the content's length in ASCII decimal (no
 * leading zero), a space, the content.
 */
final class OctetCountingCodec implements FrameDecoder, FrameEncoder {

    static final OctetCountingCodec INSTANCE = new OctetCountingCodec();

    /** Digits of the longest length a frame can have. */
    private static final int MAX_DIGITS = 10;

    private OctetCountingCodec() {
    }

    @Override
    public long frameLength(ByteBuffer in) throws FramingException {
        int start = in.position();
        int limit = in.limit();
        long length = 0;
        for (int i = start; i < limit; i++) {
            byte b = in.get(i);
            int digits = i - start;
            if (b == ' ' && digits > 0) {
                return digits + 1 + length;
            }
            if (b < '0' || b > '9' || (digits == 0 && b == '0')) {
                throw new FramingException("Octet counting: expected " + ((digits == 0) ? "a length (a digit 1-9)" : "a digit or a space")
                        + " at byte " + (digits + 1) + " of the frame, found " + describe(b));
            }
            if (digits == MAX_DIGITS) {
                throw new FramingException("Octet counting: a length of more than " + MAX_DIGITS + " digits");
            }
            length = length * 10 + (b - '0');
        }
        return MORE;
    }

    @Override
    public int headerLength(ByteBuffer frame) {
        int start = frame.position();
        int i = start;
        while (frame.get(i) != ' ') {
            i++;
        }
        return i - start + 1;
    }

    @Override
    public int overhead(int contentLength) {
        return digits(contentLength) + 1;
    }

    @Override
    public void encode(ByteBuffer content, ByteBuffer out) throws FramingException {
        int length = content.remaining();
        if (length == 0) {
            throw new FramingException("Octet counting has no empty frame: its length starts with a digit 1-9");
        }
        int digits = digits(length);
        int at = out.position() + digits;
        for (int i = 1; i <= digits; i++) {
            out.put(at - i, (byte) ('0' + length % 10));
            length /= 10;
        }
        out.position(at);
        out.put((byte) ' ').put(content);
    }

    private static int digits(int value) {
        int digits = 1;
        while (value >= 10) {
            value /= 10;
            digits++;
        }
        return digits;
    }

    static String describe(byte b) {
        return (b >= 0x21 && b < 0x7f) ? "'" + (char) b + "'" : String.format("byte 0x%02x", b & 0xff);
    }

    @Override
    public String toString() {
        return "octet-counting";
    }
}
