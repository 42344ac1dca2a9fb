package dev.sockstate.spring.handler;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * On a {@link SocketHandler} bean: A connection is closed and its registration removed: the last
 * call for it. It follows only a connection whose {@link OnOpen @OnOpen} was called, however the
 * connection ended (closed, aborted, failed, or by the server's stop).
 * <ul>
 * <li><b>Parameters</b>, by type, in any order; a parameter of another type fails start-up
 * ({@link SocketHandlerDefinitionException}):
 * <ul>
 * <li>{@link dev.sockstate.server.Connection}: the connection, closed by now; the state kept on it
 * ({@link dev.sockstate.server.Connection#attachment()}, {@link dev.sockstate.server.Connection#attributes()})
 * is still there.</li>
 * <li>{@link java.net.SocketAddress}: the peer's address, an {@link java.net.InetSocketAddress} or, on a
 * Unix domain socket, a {@link java.net.UnixDomainSocketAddress}; behind a load balancer, the client
 * that the PROXY protocol header names. The socket is closed by now: a bean whose {@code @OnClose}
 * method takes the address has it read as each connection opens, and kept.</li>
 * <li>{@link java.net.InetSocketAddress}: the same, as an IP address and port; a method that takes it
 * on the listener of a Unix domain socket fails start-up.</li>
 * <li>{@link dev.sockstate.server.PeerCredentials}: the pid, uid and gid of the process at the other
 * end of a Unix domain socket; {@code null} on an IP connection, and where the backend tells none.</li>
 * <li>{@link java.security.Principal}: the TLS peer's verified identity (a listener's client with a
 * certificate; the server, on a client's connection); {@code null} for plaintext, and for a peer that
 * sent no certificate.</li>
 * <li>{@link dev.sockstate.server.proxy.ProxyHeader}: the PROXY protocol header the connection began
 * with; {@code null} on a listener without the protocol, and for a direct client (a peer the listener
 * does not trust to send one).</li>
 * </ul></li>
 * <li><b>Returns</b> {@code void}: a method that returns anything else fails start-up.</li>
 * <li><b>Throws</b>: any exception is logged and counted; the connection is closed already.</li>
 * <li><b>Thread</b>: a worker thread of the listener's worker group (the client's, for a
 * {@code @SocketHandler(client = ...)} bean), which should not block; with a handler executor
 * ({@code handler-executor}), a thread of that executor, to which the worker hands the connection's
 * whole turn, reads included. The calls for one connection never run at once: one at a time, in the
 * order of its events (with an executor, one call may run on another thread than the one before), so
 * per-connection state needs no lock; the calls for different connections may run at once.
 * When a stop of the server ends the connection, this call may run on the thread that stops it.</li>
 * </ul>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface OnClose {
}
