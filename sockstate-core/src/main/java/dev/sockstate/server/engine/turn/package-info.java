/**
 * The engine's turn layer, internal: no API, and free to change. It knows sockets as completion keys,
 * state words and registrations, never a connection, a handler or a stage. A
 * {@link dev.sockstate.server.engine.turn.Worker} of a
 * {@link dev.sockstate.server.engine.turn.WorkerGroup} dequeues a batch from its port and looks each
 * key up in the {@link dev.sockstate.server.engine.turn.SocketTable}; the socket's
 * {@link dev.sockstate.server.engine.turn.SocketTurn} claims it through its
 * state word ({@link dev.sockstate.server.engine.turn.SocketTurn}) (or folds the events in for the
 * thread that owns it), has its subclass handle the events, and lets go: it leaves the registration
 * as the socket wants it, applied while owned where a change costs one system call either way
 * (epoll), carried by the worker's next call where one call applies changes and dequeues (Windows,
 * {@link dev.sockstate.server.engine.turn.QueuedChanges}). A thread that is not a worker runs a turn
 * as an {@link dev.sockstate.server.engine.turn.OffWorker}, with memory lent for the turn; what other
 * threads hand an owner waits as {@link dev.sockstate.server.engine.turn.Handoff}s (a run a worker asks
 * for a socket of its own port, where no other worker dequeues, runs after its batch without a message
 * through the port); the
 * {@link dev.sockstate.server.engine.turn.ServerScheduler} runs timed work. The engine
 * ({@code dev.sockstate.server.engine}) subclasses {@code SocketTurn} for listening sockets,
 * connections and UDP sockets.
 */
@NullMarked
package dev.sockstate.server.engine.turn;

import org.jspecify.annotations.NullMarked;
