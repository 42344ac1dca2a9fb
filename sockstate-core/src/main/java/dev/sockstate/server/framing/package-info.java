/**
 * Framing: how a TCP connection's byte stream is cut into messages, so that a handler receives one
 * whole frame per call and its writes go out as frames. A listener's {@link dev.sockstate.server.framing.Framing}
 * names a {@link dev.sockstate.server.framing.FrameDecoder} and a {@link dev.sockstate.server.framing.FrameEncoder}
 * (built in: lines, a delimiter, a length field, fixed-length records, RFC 6587 octet counting; or a
 * protocol's own) and the longest frame allowed. Framing is the last stage of a connection's
 * pipeline, next to the handler: a frame that lies whole in one read reaches the handler as a view
 * of the read buffer, without a copy, and only an unfinished frame is kept, in a buffer of the
 * connection's own that never outgrows the limit and is dropped once empty. Bytes that do not frame
 * are a {@link dev.sockstate.server.framing.FramingException} with its reason; a decoder that refuses
 * one frame whose length it knows may have it skipped and the connection kept
 * ({@link dev.sockstate.server.framing.FramingException#skipping}).
 */
@NullMarked
package dev.sockstate.server.framing;

import org.jspecify.annotations.NullMarked;
