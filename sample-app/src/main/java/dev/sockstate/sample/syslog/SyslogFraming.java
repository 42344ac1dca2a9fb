package dev.sockstate.sample.syslog;

import dev.sockstate.server.framing.FrameDecoder;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.framing.FramingException;
import java.nio.ByteBuffer;

/**
 * Both framings of RFC 6587 on one listener, told apart by each frame's first byte as the RFC
 * suggests: a digit starts octet counting ({@code 102 <11>1 ...}), a {@code <} (a message's
 * priority) a frame ended by LF ({@code <13>Nov 23 ...\n}). Built on the framings sockstate ships.
 */
// tag::syslog-framing[]
public final class SyslogFraming implements FrameDecoder {

    private static final FrameDecoder OCTET_COUNTING = Framing.octetCounting().decoder();

    private static final FrameDecoder LINES = Framing.line().decoder();

    @Override
    public long frameLength(ByteBuffer in) throws FramingException {
        return frameLength(in, 0);
    }

    @Override
    public long frameLength(ByteBuffer in, int searched) throws FramingException {
        return framing(in).frameLength(in, searched);
    }

    @Override
    public int headerLength(ByteBuffer frame) {
        return (isOctetCounted(frame)) ? OCTET_COUNTING.headerLength(frame) : 0;
    }

    @Override
    public int trailerLength(ByteBuffer frame) {
        return (isOctetCounted(frame)) ? 0 : LINES.trailerLength(frame);
    }

    private static FrameDecoder framing(ByteBuffer in) throws FramingException {
        byte first = in.get(in.position());
        if (first >= '1' && first <= '9') {
            return OCTET_COUNTING;
        }
        if (first == '<') {
            return LINES;
        }
        throw new FramingException("a syslog frame starts with a length (octet counting) or '<' (a priority), not "
                + ((first >= 0x21 && first < 0x7f) ? "'" + (char) first + "'" : String.format("byte 0x%02x", first & 0xff)));
    }

    private static boolean isOctetCounted(ByteBuffer frame) {
        byte first = frame.get(frame.position());
        return first >= '1' && first <= '9';
    }

    @Override
    public String toString() {
        return "RFC 6587 (octet counting or LF)";
    }
}
// end::syslog-framing[]
