/**
 * The wiretap: a stage that logs a TCP connection's events and bytes at DEBUG, for debugging a
 * protocol ({@link dev.sockstate.server.wiretap.Wiretap}).
 */
@NullMarked
package dev.sockstate.server.wiretap;

import org.jspecify.annotations.NullMarked;
