/**
 * The embedded test harness's parts, internal: a socket and a notification port in memory
 * ({@link dev.sockstate.server.engine.embedded.EmbeddedSocket},
 * {@link dev.sockstate.server.engine.embedded.EmbeddedPort}) and the handler wrapper that notes what
 * reaches {@code onError} ({@link dev.sockstate.server.engine.embedded.RecordingErrors}). The port
 * keeps the same contract as the real ones (a semantic suite runs it beside epoll's and Windows'),
 * so a handler tested on it sees what a server would show it. It knows no part of the engine: the
 * engine's public {@link dev.sockstate.server.engine.EmbeddedConnection} runs one connection over
 * it, and is what tests use.
 */
@NullMarked
package dev.sockstate.server.engine.embedded;

import org.jspecify.annotations.NullMarked;
