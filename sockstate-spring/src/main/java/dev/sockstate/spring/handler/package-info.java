/**
 * The handler model: {@link dev.sockstate.spring.handler.SocketHandler} beans and their annotated
 * methods ({@code @OnOpen}, {@code @OnData}, {@code @OnMessage}, ...), adapted to the core's
 * {@link dev.sockstate.server.ConnectionHandler} and {@link dev.sockstate.server.DatagramHandler}.
 * Spring Framework only, no Spring Boot: the annotations are for users;
 * {@link dev.sockstate.spring.handler.SocketHandlers} turns the beans of any Spring application
 * context into the listeners' handlers (Spring Boot's auto-configuration calls it, and so can a plain
 * Spring application that builds its {@code SocketServer} itself).
 */
@NullMarked
package dev.sockstate.spring.handler;

import org.jspecify.annotations.NullMarked;
