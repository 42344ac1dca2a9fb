/**
 * How fast a listener's or a client's connections may read and write: {@link dev.sockstate.server.shaping.Shaping}'s
 * rates in bytes a second, each connection's and all of them together, given to
 * {@link dev.sockstate.server.ConnectionSettings.Builder#shaping} and changed on a running server with
 * {@link dev.sockstate.server.engine.SocketServer#changeShaping}. A connection over its rate stops reading and
 * holds its writes in its queue, where they count towards its back-pressure, until its share comes
 * back. This package knows only the JDK: it depends on no other part of sockstate.
 */
@NullMarked
package dev.sockstate.server.shaping;

import org.jspecify.annotations.NullMarked;
