/**
 * TLS for a TCP listener: {@link dev.sockstate.server.tls.Tls} says how its connections are
 * secured (the {@link javax.net.ssl.SSLContext}, client authentication, protocols, cipher suites,
 * the handshake's time limit, contexts chosen by the client's server name, where the engine's
 * delegated tasks run). Given to {@link dev.sockstate.server.ConnectionSettings.Builder#tls}, it puts
 * a TLS stage first in each connection's pipeline, next to the socket: stages, framing and the
 * handler above it see plaintext, and the handler hears of a connection only once its handshake
 * succeeded. This package knows only the JDK: it depends on no other part of sockstate.
 */
@NullMarked
package dev.sockstate.server.tls;

import org.jspecify.annotations.NullMarked;
