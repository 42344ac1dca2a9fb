package dev.sockstate.server.engine.turn;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a test (or a class of tests) that blocks worker threads on purpose, to hold a turn where a
 * race needs it or to show what a blocking handler does: {@link BlockingCheck} does not fail it.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.METHOD, ElementType.TYPE })
public @interface BlocksWorkers {

    /** @return why the test blocks a worker */
    String value();
}
