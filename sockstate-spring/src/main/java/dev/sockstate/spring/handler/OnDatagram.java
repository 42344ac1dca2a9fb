package dev.sockstate.spring.handler;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * On a {@link SocketHandler} bean: A datagram arrived on a UDP listener (see {@link OnMessage} for
 * typed messages; a bean has one of the two). A UDP listener's handler needs an {@code @OnDatagram}
 * or an {@code @OnMessage} method.
 * <ul>
 * <li><b>Parameters</b>, by type, in any order; a parameter of another type fails start-up
 * ({@link SocketHandlerDefinitionException}):
 * <ul>
 * <li>{@link dev.sockstate.server.DatagramEndpoint}: the listener's socket, to send with.</li>
 * <li>{@link java.nio.ByteBuffer}: the datagram, from position to limit, valid during the call only.</li>
 * <li>{@code byte[]}: a copy of the datagram.</li>
 * <li>{@link String}: the datagram decoded in the listener's charset (UTF-8 by default); bytes that
 * do not decode are replaced.</li>
 * <li>{@link dev.sockstate.port.PeerAddress}: the sender, valid during the call only.</li>
 * <li>{@link java.net.SocketAddress}: the sender, an {@link java.net.InetSocketAddress} or, on a Unix
 * domain socket, a {@link java.net.UnixDomainSocketAddress}.</li>
 * <li>{@link java.net.InetSocketAddress}: the sender as an IP address and port; a method that takes it
 * on the listener of a Unix domain socket fails start-up.</li>
 * </ul></li>
 * <li><b>Returns</b> {@code void}, or a {@link java.nio.ByteBuffer}, {@code byte[]} or {@link String}
 * (in the listener's charset) that is sent back to the sender as one datagram (dropped, and counted,
 * when the socket's buffer is full); a {@code null} returned sends nothing. A method that returns
 * another type fails start-up.</li>
 * <li><b>Throws</b>: any exception is logged and counted; the datagram is dropped, and the listener
 * goes on.</li>
 * <li><b>Thread</b>: a worker thread of the listener's worker group, which should not block, one
 * datagram at a time; with a handler executor ({@code handler-executor}), a thread of that executor,
 * to which each datagram is handed (a copy), so that several may be handled at once: at most the
 * listener's {@code max-datagrams-in-flight} wait for it, and more are dropped, counted.</li>
 * </ul>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(HandlerMethodReflectiveProcessor.class)
public @interface OnDatagram {
}
