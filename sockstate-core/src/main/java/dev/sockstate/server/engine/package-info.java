/**
 * The server engine. Its public types are {@link dev.sockstate.server.engine.SocketServer} and, for
 * tests of a handler without a socket, {@link dev.sockstate.server.engine.EmbeddedConnection}, which
 * runs one connection of a listener through the same code over a socket and a port in memory (the
 * internal {@code dev.sockstate.server.engine.embedded}); the rest is package-private, and the turn
 * layer it builds on (ownership, dispatch, registrations) is the internal
 * {@code dev.sockstate.server.engine.turn}. One TCP read travels through: a {@code Worker} dequeues a
 * batch from its port, looks each completion key up in the {@code SocketTable} and hands the
 * notification to the socket's {@code SocketTurn}, whose state word lets one thread claim it; the
 * connection, a {@link dev.sockstate.server.engine.TcpConnection}, in its turn (with a handler
 * executor, on the executor's thread, to which the worker hands the whole turn), reads into the
 * running thread's buffer and passes the bytes on its one route between socket and handler: inbound
 * through its {@link dev.sockstate.server.engine.Pipeline} of
 * stages (if the listener has any; with TLS the first is the internal
 * {@link dev.sockstate.server.engine.tls.TlsStage}), then to its
 * {@link dev.sockstate.server.engine.Listener}, which cuts them into frames with its
 * {@link dev.sockstate.server.engine.Framer} (with framing) and has
 * {@link dev.sockstate.server.engine.HandlerCalls} call the user's handler; the handler's writes go
 * back the same way outbound to the {@link dev.sockstate.server.engine.WritePath}, and the turn ends
 * by leaving the registration as the connection wants it (re-armed at once on epoll, in the worker's
 * next call on Windows). A listener's collaborators are its own: a socket asks it to do a thing and
 * never reaches through it. A client's connections take the same route: {@code Client} keeps a pool
 * that its {@code Connector} opens (names resolved and sockets opened on a connect thread, the connect
 * ended by the port's notification), each a {@code TcpConnection} whose first turn ends its connect,
 * served by a {@code Listener} of the client's own that binds nothing; a frame a request is owed
 * completes it ({@code ClientLink}) where a listener's would reach the handler. An idle connection is
 * its {@code TcpConnection} and its {@code WritePath} alone (at most 184 bytes of heap between
 * them): what it seldom needs (its client's link, the addresses a handler asked for, TLS
 * and PROXY protocol state, its failure, the buffer other threads' writes gather in) waits in a
 * {@code ConnectionExtras} made on first use.
 */
package dev.sockstate.server.engine;
