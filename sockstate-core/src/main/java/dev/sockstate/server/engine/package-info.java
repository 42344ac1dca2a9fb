/**
 * The server engine. Its public types are {@link dev.sockstate.server.engine.SocketServer} and, for
 * tests of a handler without a socket, {@link dev.sockstate.server.engine.EmbeddedConnection}, which
 * runs one connection of a listener through the same code over a socket and a port in memory (the
 * internal {@code dev.sockstate.server.engine.embedded}); the rest is package-private, and the turn
 * layer it builds on (ownership, dispatch, registrations) is the internal
 * {@code dev.sockstate.server.engine.turn}.
 * <p>
 * One TCP read travels through: a {@code Worker} dequeues a batch from its port, looks each
 * completion key up in the {@code SocketTable} and hands the notification to the socket's
 * {@code SocketTurn}, whose state word lets one thread claim it; the connection, a
 * {@link dev.sockstate.server.engine.TcpConnection}, in its turn (with a handler executor, on the
 * executor's thread, to which the worker hands the whole turn), reads into the running thread's
 * buffer and passes the bytes along the {@link dev.sockstate.server.engine.Route} its listener's
 * connections share: through its own {@link dev.sockstate.server.engine.Pipeline} of stages (if the
 * listener has any; the PROXY protocol's and TLS's come first), then the route's
 * {@link dev.sockstate.server.engine.Framer} (with framing), to its terminal,
 * {@link dev.sockstate.server.engine.HandlerCalls}, which calls the user's handler. The handler's
 * writes go back the same way outbound to the {@link dev.sockstate.server.engine.WritePath}, and the
 * turn ends by leaving the registration as the connection wants it (re-armed at once on epoll, in
 * the worker's next call on Windows). The route knows its connection only as a
 * {@link dev.sockstate.server.engine.RouteHost}.
 * <p>
 * What the connections of one listener or one client share (settings, observer, counts and reports,
 * route, worker group, timer, executor, messages) is their
 * {@link dev.sockstate.server.engine.ConnectionProfile}; a {@code Listener} is a profile plus what it
 * binds. A client's connections take the same route: {@code Client} keeps a pool that its
 * {@code Connector} opens (names resolved and sockets opened on a connect thread, the connect ended by
 * the port's notification), each a {@code ClientConnection} whose first turn ends its connect. The
 * client meets the connection at two seams: on the route, its {@code HandlerCalls.Replies} take a
 * frame a request is owed before the handler is called; in the turn, its {@code ClientLink} writes
 * the requests other threads handed over and applies the request timeout. A request knows the
 * accepted connection whose handler made it only as a {@code ReplyAwaiter}, and its client only by
 * its {@code RequestTerms}. An idle connection is its {@code TcpConnection} and its
 * {@code WritePath} alone (at most 184 bytes of heap between them): what it seldom needs (the
 * addresses a handler asked for, TLS and PROXY protocol state, its failure, the tasks handed to its
 * turn, the buffer other threads' writes gather in) waits in a {@code ConnectionExtras} made on first
 * use.
 */
@NullMarked
package dev.sockstate.server.engine;

import org.jspecify.annotations.NullMarked;
