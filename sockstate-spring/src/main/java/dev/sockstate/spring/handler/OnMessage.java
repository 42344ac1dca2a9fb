package dev.sockstate.spring.handler;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * On a {@link SocketHandler} bean: one whole message arrived, a frame of a TCP listener with framing
 * ({@code sockstate.listeners.<name>.framing.type}) or a UDP datagram. A bean has one {@code @OnMessage}
 * method at most, and no {@link OnData @OnData} (TCP) or {@link OnDatagram @OnDatagram} (UDP) method
 * beside it; on a TCP listener without framing it fails start-up. On a client's handler, it receives
 * the frames that no request is owed.
 *
 * <pre>{@code
 * @SocketHandler("orders")
 * class OrderHandler {
 *     @OnMessage
 *     Receipt order(Order order) {   // one JSON document per line, and one back
 *         return this.orders.place(order);
 *     }
 * }
 * }</pre>
 *
 * <ul>
 * <li><b>Parameters</b>, by type, in any order; a parameter of another type fails start-up
 * ({@link SocketHandlerDefinitionException}):
 * <ul>
 * <li>The message, as a {@link java.nio.ByteBuffer} (the frame or datagram itself, from position to limit,
 * valid during the call only), a {@code byte[]} (a copy), a {@link String} (decoded in the listener's
 * charset, UTF-8 by default; bytes that do not decode are replaced) or any other type, read from the
 * message by the listener's {@link dev.sockstate.server.MessageMapper}: in Spring Boot, by a
 * {@code Converter} bean from {@code byte[]} to it or, with Jackson on the class path, as one JSON
 * document. A type that nothing reads fails start-up. A message that does not read as the type is
 * refused: on TCP, {@link OnError @OnError} is told (an
 * {@link dev.sockstate.server.InvalidMessageException}) and the connection is closed once what it
 * wrote in answer is sent; on UDP, the datagram is dropped; either way counted in
 * {@code sockstate.frames.rejected}.</li>
 * <li>TCP only: {@link dev.sockstate.server.Connection}, the peer's
 * {@link java.net.SocketAddress} and {@link java.net.InetSocketAddress},
 * {@link dev.sockstate.server.PeerCredentials}, {@link java.security.Principal} and
 * {@link dev.sockstate.server.proxy.ProxyHeader}, as {@link OnData @OnData} takes them: the
 * address an {@code InetSocketAddress} or, on a Unix domain socket, a
 * {@link java.net.UnixDomainSocketAddress} (a method that takes an {@code InetSocketAddress} there fails
 * start-up); the credentials {@code null} on an IP connection and where the backend tells none, the principal
 * {@code null} for plaintext and for a peer that sent no certificate, the header {@code null} on a
 * listener without the PROXY protocol and for a direct client.</li>
 * <li>UDP only: {@link dev.sockstate.server.DatagramEndpoint}, the listener's socket; the sender as
 * {@link dev.sockstate.port.PeerAddress} (the worker's, valid during the call only),
 * {@link java.net.SocketAddress} or (not on a Unix domain socket) {@link java.net.InetSocketAddress}.</li>
 * </ul></li>
 * <li><b>Returns</b> {@code void}, or a message that is sent back: on TCP as one frame, as
 * {@link dev.sockstate.server.Connection#send} sends it; on UDP as one datagram to the sender (dropped,
 * and counted, when the socket's buffer is full). A {@link java.nio.ByteBuffer} or {@code byte[]} is
 * sent as it is, a {@link String} in the listener's charset, any other object as the listener's mapper
 * writes it (in Spring Boot, a {@code Converter} bean to {@code byte[]}, or Jackson). A declared type
 * that nothing writes fails start-up; a method declared to return {@code Object} is checked only as it
 * sends. A {@code null} returned sends nothing.</li>
 * <li><b>Throws</b>: on TCP, any exception aborts the connection (logged and counted;
 * {@link OnError @OnError} is not called for it), but for an
 * {@link dev.sockstate.server.InvalidMessageException}, taken as a message that does not read; on
 * UDP, it is logged and counted, the datagram dropped, and the listener goes on.</li>
 * <li><b>Thread</b>: as {@link OnData @OnData}'s on TCP, {@link OnDatagram @OnDatagram}'s on UDP: a
 * worker thread of the listener's (or the client's) worker group, or, with a handler executor
 * ({@code handler-executor}), a thread of that executor. On TCP the calls for one connection never run
 * at once (one at a time, in the order of its frames); on UDP, with an executor, several datagrams may
 * be handled at once.</li>
 * </ul>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(HandlerMethodReflectiveProcessor.class)
public @interface OnMessage {
}
