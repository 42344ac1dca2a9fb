/**
 * The portable notification model, the same on every backend: a {@link dev.sockstate.port.NotificationPort}
 * that many threads dequeue from, registrations changed in a {@link dev.sockstate.port.RegistrationBatch}
 * and applied in the same call that dequeues a {@link dev.sockstate.port.NotificationBatch}, posted
 * messages, native non-blocking {@link dev.sockstate.port.NativeSockets}, and backend selection
 * ({@link dev.sockstate.port.Backends}). For the server engine, and for programs that drive a port
 * themselves.
 * <p>
 * <b>Guarantees.</b> What code written against this package may rely on is what every backend
 * guarantees, stated in {@link dev.sockstate.port.NotificationPort}: an edge only for a change after
 * the registration was enabled (so read until would-block after each enable), level-triggered
 * notifications possibly stale, notifications already queued possibly delivered after DISABLE and close,
 * REMOVE last and possibly joined with other events, and errors learnt by reading. A backend that
 * offers more says so through {@link dev.sockstate.port.Backend} (such as
 * {@link dev.sockstate.port.Backend#edgeOnEveryArrival()}).
 * <p>
 * <b>Backend SPI.</b> A backend implements {@link dev.sockstate.port.Backend} (found with
 * {@link java.util.ServiceLoader}) and extends {@link dev.sockstate.port.AbstractNotificationPort} and
 * {@link dev.sockstate.port.AbstractNativeSockets}, or, for BSD-style socket calls,
 * {@link dev.sockstate.port.AbstractBsdSockets}, which writes what such calls share once and asks
 * a backend only for its numbers, its error codes and each call on its binding: their protected members, and
 * {@link dev.sockstate.port.SocketAddressLayout}, are for backends only. Batches are written only
 * through those protected members, so code that merely uses a port can read a batch but never fill
 * one. Nothing here knows a backend, the server or JNA.
 */
@NullMarked
package dev.sockstate.port;

import org.jspecify.annotations.NullMarked;
