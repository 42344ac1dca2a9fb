package dev.sockstate.spring.handler;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.annotation.AliasFor;
import org.springframework.stereotype.Component;

/**
 * Marks a bean that serves one listener: in Spring Boot, one configured under
 * {@code sockstate.listeners}; in a plain Spring application, one named in the listeners given to
 * {@link SocketHandlers#resolve}. With {@link #client()} instead, it serves the connections of an
 * outbound client ({@code sockstate.clients}) as a listener's: their events, and the frames that no
 * request is owed. The bean
 * either implements {@link dev.sockstate.server.ConnectionHandler} (TCP) or
 * {@link dev.sockstate.server.DatagramHandler} (UDP), or has methods annotated with
 * {@link OnOpen}, {@link OnData} or {@link OnMessage}, {@link OnWritable}, {@link OnHangup},
 * {@link OnError}, {@link OnClose}, or {@link OnDatagram} or {@link OnMessage} (UDP), whose
 * parameters are injected by type.
 *
 * <pre>{@code
 * @SocketHandler("echo")
 * class EchoHandler {
 *     @OnData
 *     ByteBuffer echo(ByteBuffer data) {
 *         return data;   // written back to the connection
 *     }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Component
public @interface SocketHandler {

    /** @return the name of the listener this bean serves */
    @AliasFor("listener")
    String value() default "";

    /** @return the name of the listener this bean serves */
    @AliasFor("value")
    String listener() default "";

    /** @return the name of the outbound client whose connections this bean serves, instead of a listener */
    String client() default "";

    /**
     * @return the application protocol (ALPN) of the listener's connections this bean serves, one of
     * those its TLS negotiates ({@code ssl.application-protocols}): a listener may then have a bean per
     * protocol, and one that names none serves the rest (those of a protocol no bean names, those
     * without one), which it must have unless every protocol has a bean and the listener serves no
     * plaintext beside TLS; empty to name none
     */
    String applicationProtocol() default "";
}
