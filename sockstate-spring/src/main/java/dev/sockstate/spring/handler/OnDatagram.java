package dev.sockstate.spring.handler;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * On a {@link SocketHandler} bean: A datagram arrived on a UDP listener. Parameters: {@link dev.sockstate.server.DatagramEndpoint}, the datagram as {@link java.nio.ByteBuffer}, {@code byte[]} or {@code String} (in the listener's charset), the sender as {@link dev.sockstate.port.PeerAddress}, {@link java.net.SocketAddress} or (not on a Unix domain socket) {@link java.net.InetSocketAddress}. A returned {@code ByteBuffer}, {@code byte[]} or {@code String} is sent back to the sender.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(HandlerMethodReflectiveProcessor.class)
public @interface OnDatagram {
}
