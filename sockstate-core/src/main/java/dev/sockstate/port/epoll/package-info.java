/**
 * The Linux backend: an epoll instance as the notification port, its REMOVE notification
 * synthesised, and native sockets, through JNA direct mapping. Internal: used through
 * {@link dev.sockstate.port.Backends} only; every type but the service-loaded backend is
 * package-private.
 */
package dev.sockstate.port.epoll;
