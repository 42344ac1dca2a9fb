/**
 * Outbound TCP connections on the server's own workers: a {@link dev.sockstate.server.client.SocketClient}
 * per {@link dev.sockstate.server.client.ClientSettings}, whose pool of connections is served like
 * accepted ones (the same framing, messages, handlers and executors), connected without blocking
 * through the notification port, and connected again with {@link dev.sockstate.server.client.Backoff}
 * when a connection fails. A request's reply completes a future, or is handed in place to a
 * {@link dev.sockstate.server.client.ReplyHandler}. {@link dev.sockstate.server.client.Relay} passes one connection's bytes to
 * another with flow control, for proxies and gateways.
 */
@NullMarked
package dev.sockstate.server.client;

import org.jspecify.annotations.NullMarked;
