/**
 * The wiretap: a stage that logs a TCP connection's events and bytes at DEBUG, for debugging a
 * protocol ({@link dev.sockstate.server.wiretap.Wiretap}).
 */
package dev.sockstate.server.wiretap;
