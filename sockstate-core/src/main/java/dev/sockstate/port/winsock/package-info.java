/**
 * The Windows backend: {@code ProcessSocketNotifications} on an I/O completion port, with Winsock
 * sockets, through JNA (Windows build 20348 or later, 64-bit JVMs). Internal: used through
 * {@link dev.sockstate.port.Backends} only.
 */
package dev.sockstate.port.winsock;
