package dev.sockstate.server.wiretap;

import java.nio.ByteBuffer;

/** Bytes as a wiretap prints them: their count, then lines of offset, hex and printable text. */
final class HexLines {

    /** Bytes shown a line. */
    static final int BYTES_PER_LINE = 16;

    /** Lines shown an event; the bytes after them are counted, not shown. */
    static final int MOST_LINES = 16;

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private HexLines() {
    }

    /**
     * @param data the bytes from position to limit, which are not consumed
     * @return {@code "5 B"} and a line per {@value #BYTES_PER_LINE} bytes, such as
     * {@code "0000  68 65 6c 6c 6f   |hello|"}, at most {@value #MOST_LINES} lines
     */
    static String of(ByteBuffer data) {
        int length = data.remaining();
        int shown = Math.min(length, BYTES_PER_LINE * MOST_LINES);
        StringBuilder text = new StringBuilder(32 + (shown / BYTES_PER_LINE + 1) * (8 + 4 * BYTES_PER_LINE));
        text.append(length).append(" B");
        int start = data.position();
        for (int line = 0; line < shown; line += BYTES_PER_LINE) {
            int end = Math.min(shown, line + BYTES_PER_LINE);
            text.append('\n').append(String.format("%04x", line)).append(' ');
            for (int i = line; i < line + BYTES_PER_LINE; i++) {
                if (i < end) {
                    int b = data.get(start + i) & 0xff;
                    text.append(' ').append(HEX[b >>> 4]).append(HEX[b & 0xf]);
                }
                else {
                    text.append("   ");
                }
            }
            text.append("  |");
            for (int i = line; i < end; i++) {
                int b = data.get(start + i) & 0xff;
                text.append((b >= 0x20 && b < 0x7f) ? (char) b : '.');
            }
            text.append('|');
        }
        if (shown < length) {
            text.append("\n... ").append(length - shown).append(" B more");
        }
        return text.toString();
    }
}
