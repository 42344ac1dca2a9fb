package dev.sockstate.spring.handler;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * On a {@link SocketHandler} bean: A connection failed (reset by the peer, for example), or the
 * peer's bytes were refused (they do not frame, or do not read as the handler's message type). The
 * connection is closed afterwards: at once after a failure; after a refusal, once what the method
 * wrote in answer (a protocol's error reply) is sent, nothing more being read; a framing refusal that
 * skips one frame ({@link dev.sockstate.server.framing.FramingException#skips()}) drops only that
 * frame, and the connection goes on. It follows only a connection whose {@link OnOpen @OnOpen} was
 * called; a handler method's own exception is not told to it, but for an
 * {@link dev.sockstate.server.InvalidMessageException}, taken as the peer's bytes refused.
 * <ul>
 * <li><b>Parameters</b>, by type, in any order; a parameter of another type fails start-up
 * ({@link SocketHandlerDefinitionException}):
 * <ul>
 * <li>{@link Throwable}: what happened, such as a {@link dev.sockstate.port.NativeIoException} (a
 * reset), a {@link dev.sockstate.server.framing.FramingException} or
 * {@link dev.sockstate.server.InvalidMessageException} (bytes refused), a
 * {@link dev.sockstate.server.PendingWriteLimitException}, a
 * {@link dev.sockstate.server.proxy.ProxyHeaderException}, a
 * {@link java.util.concurrent.RejectedExecutionException} (the handler executor refused the call) or
 * what a stage of the connection failed with. {@link Exception}, {@link java.io.IOException} or
 * {@code NativeIoException} are accepted too, but the failure is cast to the declared type, and one of
 * another type fails the call: declare {@code Throwable}.</li>
 * <li>{@link dev.sockstate.server.Connection}: the connection, to write, send, close, pause reading
 * and keep per-connection state on ({@link dev.sockstate.server.Connection#attach}).</li>
 * <li>{@link java.net.SocketAddress}: the peer's address, an {@link java.net.InetSocketAddress} or, on a
 * Unix domain socket, a {@link java.net.UnixDomainSocketAddress}; behind a load balancer, the client
 * that the PROXY protocol header names. After a reset the socket tells it no more: a bean whose
 * {@code @OnError} method takes the address has it read as each connection opens, and kept.</li>
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
 * <li><b>Throws</b>: any exception is logged and counted; the connection is closed all the same.</li>
 * <li><b>Thread</b>: a worker thread of the listener's worker group (the client's, for a
 * {@code @SocketHandler(client = ...)} bean), which should not block; with a handler executor
 * ({@code handler-executor}), a thread of that executor, to which the worker hands the connection's
 * whole turn, reads included. The calls for one connection never run at once: one at a time, in the
 * order of its events (with an executor, one call may run on another thread than the one before), so
 * per-connection state needs no lock; the calls for different connections may run at once. A
 * refusal of the executor's is told on the worker that it refused.</li>
 * </ul>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface OnError {
}
