package dev.sockstate.autoconfigure.handler;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a {@link SocketHandler} bean: Bytes arrived on a connection. Parameters: {@link dev.sockstate.server.Connection}, the bytes as {@link java.nio.ByteBuffer} (valid during the call), {@code byte[]} or {@code String} (UTF-8), the peer's {@link java.net.InetSocketAddress}. A returned {@code ByteBuffer}, {@code byte[]} or {@code String} is written back.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface OnData {
}
