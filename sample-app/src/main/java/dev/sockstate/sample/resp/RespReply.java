package dev.sockstate.sample.resp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** The reply to a request, built in a buffer that a thread reuses for its next request. */
public final class RespReply {

    private static final byte[] CRLF = { '\r', '\n' };

    private byte[] bytes = new byte[256];

    private int length;

    /** @param text a simple string, sent as {@code +text} */
    public void simple(String text) {
        put((byte) '+');
        put(text.getBytes(StandardCharsets.US_ASCII));
        put(CRLF);
    }

    /** @param message an error, sent as {@code -message} */
    public void error(String message) {
        put((byte) '-');
        put(message.getBytes(StandardCharsets.UTF_8));
        put(CRLF);
    }

    /** @param value an integer, sent as {@code :value} */
    public void integer(long value) {
        put((byte) ':');
        put(Long.toString(value).getBytes(StandardCharsets.US_ASCII));
        put(CRLF);
    }

    /** @param value a bulk string, or {@code null} for the null bulk string */
    public void bulk(byte[] value) {
        if (value == null) {
            put(new byte[] { '$', '-', '1', '\r', '\n' });
            return;
        }
        put((byte) '$');
        put(Integer.toString(value.length).getBytes(StandardCharsets.US_ASCII));
        put(CRLF);
        put(value);
        put(CRLF);
    }

    /** @param size the number of elements that follow */
    public void array(int size) {
        put((byte) '*');
        put(Integer.toString(size).getBytes(StandardCharsets.US_ASCII));
        put(CRLF);
    }

    /** Empties the reply, for the next request. */
    public void clear() {
        this.length = 0;
    }

    /** @return whether nothing was gathered */
    public boolean isEmpty() {
        return this.length == 0;
    }

    /** @return the gathered replies, ready to write */
    public ByteBuffer toBuffer() {
        return ByteBuffer.wrap(this.bytes, 0, this.length);
    }

    /** @return the gathered replies as text, for tests */
    @Override
    public String toString() {
        return new String(this.bytes, 0, this.length, StandardCharsets.UTF_8);
    }

    private void put(byte value) {
        ensure(1);
        this.bytes[this.length++] = value;
    }

    private void put(byte[] values) {
        ensure(values.length);
        System.arraycopy(values, 0, this.bytes, this.length, values.length);
        this.length += values.length;
    }

    private void ensure(int more) {
        if (this.length + more > this.bytes.length) {
            this.bytes = Arrays.copyOf(this.bytes, Math.max(this.length + more, this.bytes.length * 2));
        }
    }
}
