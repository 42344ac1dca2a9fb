/**
 * Typed messages for {@code @OnMessage} handlers and {@code Connection.send}: the application's
 * {@code Converter} beans, and JSON with Jackson when it is on the class path.
 */
package dev.sockstate.autoconfigure.message;
