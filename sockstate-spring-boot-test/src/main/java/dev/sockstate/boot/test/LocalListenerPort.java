package dev.sockstate.boot.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a field of a Spring test ({@code int}, {@code Integer} or {@code String}): the port number the
 * named listener bound, injected once the context started, as {@code @LocalServerPort} gives the web
 * server's. Naming a listener that is not bound fails the test, listing those that are.
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LocalListenerPort {

    /** @return the listener's name, as under {@code sockstate.listeners} */
    String value();
}
