package dev.sockstate.server.framing;

import java.nio.ByteBuffer;

/**
 * Frames the content a handler writes: adds a header, a terminator or both. Stateless, like
 * {@link FrameDecoder}: one instance serves every connection of a listener, from any thread.
 */
public interface FrameEncoder {

    /** Writes content as it is: for protocols whose handlers write whole frames themselves. */
    FrameEncoder AS_IS = new FrameEncoder() {

        @Override
        public int overhead(int contentLength) {
            return 0;
        }

        @Override
        public void encode(ByteBuffer content, ByteBuffer out) {
            out.put(content);
        }

        @Override
        public String toString() {
            return "as-is";
        }
    };

    /**
     * @param contentLength the content's length
     * @return how many bytes framing adds to it
     */
    int overhead(int contentLength);

    /**
     * Writes one frame.
     * @param content the content, from position to limit; consumed
     * @param out room for the content and its {@link #overhead}
     * @throws FramingException when the content cannot be framed (too long for the length field, say)
     */
    void encode(ByteBuffer content, ByteBuffer out) throws FramingException;
}
