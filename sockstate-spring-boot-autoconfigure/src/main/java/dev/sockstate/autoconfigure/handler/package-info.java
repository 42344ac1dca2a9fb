/**
 * {@link dev.sockstate.autoconfigure.handler.SocketHandler} beans and their annotated methods
 * ({@code @OnOpen}, {@code @OnData}, ...), adapted at start-up to the core's handler interfaces.
 * The annotations are for users; {@link dev.sockstate.autoconfigure.handler.SocketHandlers} for the
 * auto-configuration.
 */
package dev.sockstate.autoconfigure.handler;
