/**
 * What code that serves sockets imports: the handlers ({@link dev.sockstate.server.ConnectionHandler}
 * and {@link dev.sockstate.server.Connection} for TCP, {@link dev.sockstate.server.DatagramHandler} and
 * {@link dev.sockstate.server.DatagramEndpoint} for UDP), the settings of listeners and worker groups
 * and the {@link dev.sockstate.server.Setting}s their errors name, the views of a running server, and
 * the {@link dev.sockstate.server.Stage} contract of a connection's pipeline, where protocol layers
 * (framing, TLS) plug in between socket and handler. The server itself is
 * {@link dev.sockstate.server.engine.SocketServer}.
 */
@NullMarked
package dev.sockstate.server;

import org.jspecify.annotations.NullMarked;
