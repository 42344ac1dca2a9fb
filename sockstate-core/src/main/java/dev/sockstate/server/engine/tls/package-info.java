/**
 * The engine's TLS stage, internal: no API, and free to change. A
 * {@link dev.sockstate.server.engine.tls.TlsStage} is the first stage of a TLS listener's connections;
 * it moves records through the JDK's {@code SSLEngine} ({@link dev.sockstate.server.engine.tls.TlsPump}),
 * reads what it must of them before an engine exists ({@link dev.sockstate.server.engine.tls.TlsRecords}:
 * record lengths, the ClientHello's server name), shares buffers and settings per listener
 * ({@link dev.sockstate.server.engine.tls.TlsSupport}). It is an ordinary stage: it knows its
 * connection only through its {@link dev.sockstate.server.StageContext} (the handshake's deadline,
 * the input held while the engine's tasks run, the session it publishes). Users configure TLS with
 * {@link dev.sockstate.server.tls.Tls}.
 */
@NullMarked
package dev.sockstate.server.engine.tls;

import org.jspecify.annotations.NullMarked;
