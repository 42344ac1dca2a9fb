package dev.sockstate.server.engine.tls;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the TLS stage reads of records itself, before an engine does: a record's length from its
 * header, so that only an unfinished record is kept and exactly as much of it as it needs; whether
 * the first bytes a peer sends look like TLS at all; and the server name a ClientHello asks for,
 * which picks the context its engine is made of. Everything else is the engine's.
 */
public final class TlsRecords {

    /** A record header: type, version, length. */
    public static final int HEADER = 5;

    /** Content type of handshake records: a ClientHello, or a TLS 1.2 renegotiation's. */
    public static final byte HANDSHAKE = 22;

    /** The longest record a peer may send: 16 KiB of plaintext with the most expansion TLS 1.2 allows. */
    public static final int MOST_RECORD = HEADER + (1 << 14) + 2048;

    /** The header of a record is not TLS's (SSLv2-style, or garbage): the engine judges it. */
    public static final int NOT_TLS = 0;

    /** Fewer than {@link #HEADER} bytes: the length is not known yet. */
    public static final int UNKNOWN = -1;

    private TlsRecords() {
    }

    /**
     * @param bytes a buffer with a record's start at {@code start}
     * @param start where the record starts
     * @param available how many of its bytes are there
     * @return the record's whole length, header included; {@link #UNKNOWN} or {@link #NOT_TLS}
     */
    public static int length(ByteBuffer bytes, int start, int available) {
        if (available < HEADER) {
            return UNKNOWN;
        }
        int type = bytes.get(start) & 0xff;
        int major = bytes.get(start + 1) & 0xff;
        int length = HEADER + (((bytes.get(start + 3) & 0xff) << 8) | (bytes.get(start + 4) & 0xff));
        if (type < 20 || type > 24 || major != 3 || length > MOST_RECORD) {
            return NOT_TLS;
        }
        return length;
    }

    /**
     * Copies {@code src} after the bytes held (from 0 to the position), in a buffer as long as the
     * record when that is known, growing (doubling) only as needed.
     * @param held the bytes held, or {@code null}
     * @param src the bytes to add; consumed
     * @return the buffer holding them all
     */
    public static ByteBuffer append(@Nullable ByteBuffer held, ByteBuffer src) {
        int count = src.remaining();
        ByteBuffer into = held;
        if (into == null) {
            int length = length(src, src.position(), count);
            into = ByteBuffer.allocate(Math.max(count, (length > 0) ? length : HEADER));
        }
        else if (into.remaining() < count) {
            into = ByteBuffer.allocate(Math.max(into.position() + count, 2 * into.capacity())).put(into.flip());
        }
        return into.put(src);
    }

    /**
     * Adds to an unfinished record what it lacks, as far as {@code in} goes; bytes that are no TLS
     * record are all added, for the engine to judge.
     * @param held the record's start, from 0 to the position
     * @param in the bytes that follow; what the record takes is consumed
     * @return the buffer holding the record, the same or a larger one
     */
    public static ByteBuffer complete(ByteBuffer held, ByteBuffer in) {
        ByteBuffer into = held;
        while (in.hasRemaining()) {
            int have = into.position();
            int length = length(into, 0, have);
            if (length == NOT_TLS) {
                return append(into, in);
            }
            int target = (length == UNKNOWN) ? HEADER : length;
            if (have >= target) {
                return into;
            }
            if (into.capacity() < target) {
                into = ByteBuffer.allocate(target).put(into.flip());
            }
            int take = Math.min(target - have, in.remaining());
            into.put(have, in, in.position(), take).position(have + take);
            in.position(in.position() + take);
        }
        return into;
    }

    /**
     * @param held bytes held, from 0 to the position
     * @return whether they may be unwrapped: a whole record at least, or bytes the engine must judge
     */
    public static boolean whole(ByteBuffer held) {
        int length = length(held, 0, held.position());
        return length == NOT_TLS || (length != UNKNOWN && held.position() >= length);
    }

    /**
     * @param first the first byte a peer sent
     * @return whether it may start a ClientHello: a TLS handshake record, or an SSLv2-style hello
     */
    public static boolean mayStartHello(byte first) {
        return first == HANDSHAKE || (first & 0x80) != 0;
    }

    /** What {@link #clientHello} answers while the ClientHello's records have not all arrived. */
    public static final ByteBuffer INCOMPLETE = ByteBuffer.allocate(0).asReadOnlyBuffer();

    /** The longest ClientHello whose server name is looked for: longer ones go to the default context. */
    public static final int MOST_HELLO = 64 * 1024;

    /**
     * Reassembles the ClientHello a peer's first records carry: a client may split it over several
     * handshake records (a large key share, or on purpose).
     * @param records the first bytes a peer sent, from position to limit (left as they are)
     * @return the ClientHello message, from its handshake header on; {@link #INCOMPLETE} when more
     * records are needed; {@code null} when the bytes hold no ClientHello within {@link #MOST_HELLO}
     * bytes, for the engine to judge
     */
    public static @Nullable ByteBuffer clientHello(ByteBuffer records) {
        return new HelloAssembly().next(records);
    }

    /**
     * A ClientHello reassembled as its records arrive, each record read once: a hello cut into many
     * small records, arriving in many small reads, costs what it costs arriving at once. Used by the
     * thread that reads the connection.
     */
    public static final class HelloAssembly {

        private byte @Nullable [] message;

        /** The message's bytes read so far. */
        private int have;

        /** Where the next record begins, from the first byte the peer sent. */
        private int at;

        /** The records read so far. */
        private int records;

        /**
         * @param records every byte the peer sent so far, from the first (position) to limit (left as they
         * are): the same bytes as at the call before, and those that arrived since
         * @return as {@link #clientHello}
         */
        public @Nullable ByteBuffer next(ByteBuffer records) {
            int start = records.position();
            int end = records.limit();
            while (true) {
                int from = start + this.at;
                int length = length(records, from, end - from);
                if (length == UNKNOWN) {
                    return INCOMPLETE;
                }
                if (length == NOT_TLS || records.get(from) != HANDSHAKE) {
                    return null;
                }
                if (end - from < length) {
                    return INCOMPLETE;
                }
                int payload = length - HEADER;
                if (this.message == null) {
                    this.message = new byte[Math.min(MOST_HELLO, Math.max(payload, 4))];
                }
                if (this.have + payload > this.message.length) {
                    if (this.have + payload > MOST_HELLO) {
                        return null;
                    }
                    this.message = java.util.Arrays.copyOf(this.message,
                            Math.min(MOST_HELLO, Math.max(this.have + payload, 2 * this.message.length)));
                }
                records.get(from + HEADER, this.message, this.have, payload);
                this.have += payload;
                this.at += length;
                this.records++;
                if (this.have >= 4) {
                    // The handshake header: type 1 (ClientHello) and a 3-byte length.
                    byte[] bytes = this.message;
                    int whole = 4 + (((bytes[1] & 0xff) << 16) | ((bytes[2] & 0xff) << 8) | (bytes[3] & 0xff));
                    if (bytes[0] != 1 || whole > MOST_HELLO) {
                        return null;
                    }
                    if (this.have >= whole) {
                        return ByteBuffer.wrap(bytes, 0, whole);
                    }
                }
            }
        }

        /** @return how many records the ClientHello came in, once {@link #next} answered it */
        public int records() {
            return this.records;
        }

        /**
         * The same bytes in as few records as carry them: the handshake bytes of the records the
         * ClientHello came in, cut into records of at most 16 KB with the first
         * record's version, then whatever followed those records. (An engine that reassembles a
         * handshake message by copying what it holds at each record would cost the square of the
         * message's length when it came in one-byte records.)
         * @param records the bytes {@link #next} last answered the ClientHello from, left as they are
         * @return the bytes, from 0 to the position
         */
        public ByteBuffer coalesced(ByteBuffer records) {
            int start = records.position();
            ByteBuffer after = records.duplicate();
            after.position(start + this.at);
            int count = (this.have + MOST_PAYLOAD - 1) / MOST_PAYLOAD;
            ByteBuffer out = ByteBuffer.allocate(count * HEADER + this.have + after.remaining());
            for (int from = 0; from < this.have; from += MOST_PAYLOAD) {
                int payload = Math.min(MOST_PAYLOAD, this.have - from);
                out.put(HANDSHAKE).put(records.get(start + 1)).put(records.get(start + 2)).putShort((short) payload)
                        .put(this.message, from, payload);
            }
            return out.put(after);
        }
    }

    /** The most plaintext bytes a record carries. */
    static final int MOST_PAYLOAD = 16 * 1024;

    /**
     * @param hello a whole ClientHello, from its handshake header (position) to its end (limit), left as it is
     * @return the host name it asks for (the SNI extension), {@code null} when there is none
     */
    public static @Nullable String serverName(ByteBuffer hello) {
        int at = extension(hello, SERVER_NAME);
        return (at < 0) ? null : hostName(hello, at, at + unsigned(hello, at - 2, 2));
    }

    /**
     * @param hello a whole ClientHello, from its handshake header (position) to its end (limit), left as it is
     * @return the application protocols (ALPN) it offers, in its order; {@code null} when it offers none
     */
    public static @Nullable List<String> applicationProtocols(ByteBuffer hello) {
        int at = extension(hello, APPLICATION_LAYER_PROTOCOL_NEGOTIATION);
        if (at < 0 || at + 2 > hello.limit()) {
            return null;
        }
        int listEnd = Math.min(at + unsigned(hello, at - 2, 2), at + 2 + unsigned(hello, at, 2));
        List<String> names = new ArrayList<>(4);
        for (at += 2; at < listEnd; ) {
            int length = hello.get(at) & 0xff;
            if (at + 1 + length > listEnd) {
                break;
            }
            byte[] name = new byte[length];
            hello.get(at + 1, name);
            names.add(new String(name, StandardCharsets.ISO_8859_1));
            at += 1 + length;
        }
        return names.isEmpty() ? null : names;
    }

    /** The alert for a message that does not belong where it came: bytes that are no TLS record. */
    public static final byte UNEXPECTED_MESSAGE = 10;

    /** The alert a server sends when no application protocol matches (RFC 7301). */
    public static final byte NO_APPLICATION_PROTOCOL = 120;

    /**
     * @param description the alert's description
     * @return a fatal alert record in plaintext, as a server sends before any key is agreed
     */
    public static ByteBuffer fatalAlert(byte description) {
        return ByteBuffer.wrap(new byte[] {21, 3, 3, 0, 2, 2, description});
    }

    private static final int SERVER_NAME = 0;

    private static final int APPLICATION_LAYER_PROTOCOL_NEGOTIATION = 16;

    /**
     * @return where the data of the ClientHello's extension of that type begins (its two length bytes
     * just before), or -1 when it has none or its lengths run past its end
     */
    private static int extension(ByteBuffer hello, int wanted) {
        int at = hello.position();
        int end = hello.limit();
        ByteBuffer record = hello;
        if (end - at < 4 || record.get(at) != 1) {
            return -1;
        }
        at += 4;
        // Version and random, the session id, the cipher suites and the compression methods.
        at += 2 + 32;
        at = skip(record, at, end, 1);
        at = skip(record, at, end, 2);
        at = skip(record, at, end, 1);
        if (at < 0 || at + 2 > end) {
            return -1;
        }
        int extensionsEnd = Math.min(end, at + 2 + unsigned(record, at, 2));
        at += 2;
        while (at + 4 <= extensionsEnd) {
            int type = unsigned(record, at, 2);
            int length = unsigned(record, at + 2, 2);
            at += 4;
            if (at + length > extensionsEnd) {
                return -1;
            }
            if (type == wanted) {
                return at;
            }
            at += length;
        }
        return -1;
    }

    /** @return the first host name in a server_name extension's list, or {@code null} */
    private static @Nullable String hostName(ByteBuffer record, int at, int end) {
        if (at + 2 > end) {
            return null;
        }
        int listEnd = Math.min(end, at + 2 + unsigned(record, at, 2));
        at += 2;
        while (at + 3 <= listEnd) {
            int type = record.get(at) & 0xff;
            int length = unsigned(record, at + 1, 2);
            at += 3;
            if (at + length > listEnd) {
                return null;
            }
            if (type == 0 && length > 0) {
                byte[] name = new byte[length];
                record.get(at, name);
                return new String(name, StandardCharsets.US_ASCII);
            }
            at += length;
        }
        return null;
    }

    /** @return the position after a vector whose length takes {@code lengthBytes}, or -1 past the end */
    private static int skip(ByteBuffer record, int at, int end, int lengthBytes) {
        if (at < 0 || at + lengthBytes > end) {
            return -1;
        }
        int next = at + lengthBytes + unsigned(record, at, lengthBytes);
        return (next <= end) ? next : -1;
    }

    private static int unsigned(ByteBuffer record, int at, int bytes) {
        int value = 0;
        for (int i = 0; i < bytes; i++) {
            value = (value << 8) | (record.get(at + i) & 0xff);
        }
        return value;
    }
}
