package dev.sockstate.boot.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.beans.factory.annotation.Value;

/**
 * The port number the named listener bound ({@code int}, {@code Integer}, {@code String} or anything
 * else Spring converts a number to), injected wherever {@code @Value} is: a test's field, a test
 * method's or a test constructor's parameter, a setter; as {@code @LocalServerPort} gives the web
 * server's. The port is known once the server started, as the web server's is: a bean created
 * before (a {@code @TestConfiguration}'s singleton) asks for it lazily ({@code @Lazy} or an
 * {@code ObjectProvider}). Naming a listener that is not bound fails, listing those that are.
 */
@Target({ ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
// What makes Spring inject it; the test support reads the listener's name instead of this placeholder,
// which only a context without the test support (not a test's) would try, and fail on by its name.
@Value("${local.sockstate.port-of-the-listener-LocalListenerPort-names}")
public @interface LocalListenerPort {

    /** @return the listener's name, as under {@code sockstate.listeners} */
    String value();
}
