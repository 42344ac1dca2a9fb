/**
 * The Windows backend: {@code ProcessSocketNotifications} on an I/O completion port, with Winsock
 * sockets (Windows build 20348 or later, 64-bit JVMs), on the calls of {@code WinsockCalls}: an
 * instance the backend chooses (JNA direct mapping's) and gives the port and sockets. Internal: used through
 * {@link dev.sockstate.port.Backends} only.
 */
@NullMarked
package dev.sockstate.port.winsock;

import org.jspecify.annotations.NullMarked;
