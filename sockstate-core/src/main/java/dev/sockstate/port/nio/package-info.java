/**
 * The portable backend, {@code nio}: the port contract over a JDK {@link java.nio.channels.Selector}
 * and sockets over JDK channels behind {@code long} handles, for systems and deployments the native
 * backends do not reach (no JNA call on any of its paths). Many threads dequeue from one port: one
 * selects at a time, outside the port's lock, and the batch it finds goes into a ready list that the
 * others take from, each notification to exactly one thread (leader and followers). Registration
 * changes are interest-set changes made under that lock, waking a select under way when they add
 * interest; REMOVE and posted messages are queued by the port itself. Edges are emulated over the
 * level-triggered selector: a side that notified stays out of the interest set until the socket
 * calls see a would-block on it (they tell the port, being the same backend's) or an ENABLE; which
 * keeps the portable edge guarantee. Neither HANGUP nor ERR is ever reported: a FIN or a reset is
 * learnt by the read that reaches it. Internal: used through
 * {@link dev.sockstate.port.Backends} only; every type but the service-loaded backend is
 * package-private.
 */
@NullMarked
package dev.sockstate.port.nio;

import org.jspecify.annotations.NullMarked;
