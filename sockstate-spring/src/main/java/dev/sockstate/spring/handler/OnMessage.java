package dev.sockstate.spring.handler;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * On a {@link SocketHandler} bean: one whole message arrived, a frame of a TCP listener with framing
 * ({@code sockstate.listeners.<name>.framing.type}) or a UDP datagram. The message parameter is a
 * {@link java.nio.ByteBuffer} (the frame itself, valid during the call), {@code byte[]}, {@code String}
 * (in the listener's charset) or any other type, read from the message by a {@code Converter} bean
 * from {@code byte[]} to it or, with Jackson on the class path, as one JSON document. Other
 * parameters: {@link dev.sockstate.server.Connection} (TCP), {@link dev.sockstate.server.DatagramEndpoint}
 * and the sender as {@link dev.sockstate.port.PeerAddress} (UDP), the peer's
 * {@link java.net.SocketAddress} (or {@link java.net.InetSocketAddress}, not on a Unix domain socket),
 * the {@link dev.sockstate.server.PeerCredentials} of a Unix domain socket's peer (TCP). A returned value is sent back as one message, as
 * {@link dev.sockstate.server.Connection#send} sends it. A message that does not read closes its
 * connection (drops its datagram), counted in {@code sockstate.frames.rejected}.
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
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(HandlerMethodReflectiveProcessor.class)
public @interface OnMessage {
}
