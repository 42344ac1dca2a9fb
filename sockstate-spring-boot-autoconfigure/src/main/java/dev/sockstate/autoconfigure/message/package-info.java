/**
 * Auto-configuration of typed messages for {@code @OnMessage} handlers and {@code Connection.send}:
 * the application's {@code Converter} beans, and JSON with Jackson when it is on the class path (the
 * mappers themselves are in {@code dev.sockstate.spring.message}).
 */
@NullMarked
package dev.sockstate.autoconfigure.message;

import org.jspecify.annotations.NullMarked;
