/**
 * The Linux backend: an epoll instance as the notification port, its REMOVE notification
 * synthesised, and native sockets, on the libc calls of {@code EpollCalls}: an instance the backend
 * chooses once ({@code BindingChoice}: the FFM binding on Java 22 and later, JNA direct mapping's
 * before, on request and as the fallback) and gives the port and sockets. Internal: used through
 * {@link dev.sockstate.port.Backends} only; every type but the service-loaded backend is
 * package-private.
 */
@NullMarked
package dev.sockstate.port.epoll;

import org.jspecify.annotations.NullMarked;
