/**
 * Heartbeats on a listener's connections as an ordinary stage: {@link dev.sockstate.server.heartbeat.Heartbeat}
 * sends a ping on a connection that was quiet for a while and closes it when no byte answers in time,
 * so that a peer that went silent (a hung process, a half-open connection) is found by the protocol
 * itself. This package knows only the stage contract of {@code dev.sockstate.server}.
 */
@NullMarked
package dev.sockstate.server.heartbeat;

import org.jspecify.annotations.NullMarked;
