/**
 * Spring Boot auto-configuration of sockstate's core: {@code sockstate.*} properties turned into the
 * core's settings, the {@link dev.sockstate.server.engine.SocketServer} bean and its lifecycle, a
 * {@link dev.sockstate.server.client.SocketClient} bean per outbound client, and the customizers users declare. The Spring Boot auto-configuration of sockstate, with its sub-packages; it finds
 * the {@code @SocketHandler} beans through the handler model ({@code dev.sockstate.spring.handler})
 * and reaches the core through its public API only.
 */
@NullMarked
package dev.sockstate.autoconfigure;

import org.jspecify.annotations.NullMarked;
