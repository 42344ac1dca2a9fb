package dev.sockstate.spring.handler;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * On a {@link SocketHandler} bean: Bytes arrived on a connection: what one read returned, or one
 * whole frame with framing (see {@link OnMessage} for typed messages). Parameters:
 * {@link dev.sockstate.server.Connection}, the bytes as {@link java.nio.ByteBuffer} (valid during the
 * call), {@code byte[]} or {@code String} (in the listener's charset, UTF-8 by default), the peer's
 * {@link java.net.SocketAddress} (or {@link java.net.InetSocketAddress}, TCP only), the
 * {@link dev.sockstate.server.PeerCredentials} of a Unix domain socket's peer. A returned {@code ByteBuffer}, {@code byte[]} or {@code String}
 * is written back.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(HandlerMethodReflectiveProcessor.class)
public @interface OnData {
}
