/**
 * The server engine. Its public types are {@link dev.sockstate.server.engine.SocketServer} and, for
 * tests of a handler without a socket, {@link dev.sockstate.server.engine.EmbeddedConnection}, which
 * runs one connection of a listener through the same code with the socket and the port in memory;
 * the rest is package-private. One TCP read travels through: a
 * {@link dev.sockstate.server.engine.Worker} dequeues a batch from its port, looks each completion
 * key up in the
 * {@link dev.sockstate.server.engine.SocketTable} and hands the notification to the socket's
 * {@link dev.sockstate.server.engine.SocketTurn}, whose state word lets one thread claim it; the
 * {@link dev.sockstate.server.engine.TcpConnection} reads into the worker's buffer and passes the
 * bytes inbound through its {@link dev.sockstate.server.engine.Pipeline} of stages (if the listener
 * has any; with TLS the first is the {@link dev.sockstate.server.engine.TlsStage}) to
 * {@link dev.sockstate.server.engine.HandlerCalls}, which calls the user's handler; the
 * handler's writes go back outbound to the {@link dev.sockstate.server.engine.WritePath}, and the turn
 * ends by re-arming the registration in the worker's next batch call.
 */
package dev.sockstate.server.engine;
