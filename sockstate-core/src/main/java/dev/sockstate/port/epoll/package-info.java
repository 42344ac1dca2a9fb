/**
 * The Linux backend: an epoll instance as the notification port, its REMOVE notification
 * synthesised, and native sockets, on the libc calls of {@code EpollCalls}: an instance the backend
 * chooses (JNA direct mapping's) and gives the port and sockets. Internal: used through
 * {@link dev.sockstate.port.Backends} only; every type but the service-loaded backend is
 * package-private.
 */
package dev.sockstate.port.epoll;
