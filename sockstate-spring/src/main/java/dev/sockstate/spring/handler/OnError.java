package dev.sockstate.spring.handler;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * On a {@link SocketHandler} bean: A connection failed. Parameters: {@link dev.sockstate.server.Connection}, the peer's {@link java.net.SocketAddress} (or {@link java.net.InetSocketAddress}, TCP only), {@link dev.sockstate.server.PeerCredentials} (a Unix domain socket's peer) and the {@link Throwable}.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface OnError {
}
