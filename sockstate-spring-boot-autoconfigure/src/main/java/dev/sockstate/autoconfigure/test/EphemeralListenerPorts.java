package dev.sockstate.autoconfigure.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a Spring test class: every configured listener binds an ephemeral port number (as if its
 * {@code sockstate.listeners.<name>.port} were {@code 0}, whatever the configuration says), so that
 * tests run beside a running application and beside each other. Read the ports with
 * {@link LocalListenerPort}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface EphemeralListenerPorts {
}
