package dev.sockstate.server.engine;

import dev.sockstate.server.engine.turn.SocketHome;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What, beside the connection's own limit of pending writes, keeps a connection from reading: its
 * handler's pause ({@link #pauseReading()}, from any thread), and a stage's hold on the input
 * ({@link #holdInput}, the owner's: a TLS engine's tasks run). Each release asks for a turn that reads
 * what waited, which raised no edge of its own. {@link ConnectionTurn} reads as these say.
 */
abstract class ReadGate extends AcceptedConnection {

    /** Whether the handler paused reading; any thread, set and cleared atomically. */
    volatile boolean readingPaused;

    /** Whether reading resumed since the last turn: the next turn reads, edge or level; any thread sets it, the owner clears it. */
    volatile boolean readingResumed;

    /** Whether a stage holds the input: nothing is read until it releases it; the owner. */
    boolean inputHeld;

    /** Whether a stage released the input since the last read: the next turn reads, edge or level; the owner. */
    boolean inputReleased;

    /**
     * Whether a hang-up was notified while the input was held: it is read (after what came before it)
     * once the input is released, and not watched meanwhile, which a level trigger would report again
     * and again; the owner.
     */
    boolean hangupWhileHeld;

    private static final VarHandle READING_PAUSED;

    static {
        try {
            READING_PAUSED = MethodHandles.lookup().findVarHandle(ReadGate.class, "readingPaused", boolean.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** @param link a client's connection's tie to its client; {@code null} for an accepted connection */
    ReadGate(Listener listener, SocketHome home, long handle, ClientLink link) {
        super(listener, home, handle, link);
    }

    @Override
    public void holdInput(boolean hold) {
        if (hold != this.inputHeld) {
            this.inputHeld = hold;
            this.inputReleased = !hold;
            this.hangupWhileHeld = false;
            if (!hold) {
                requestTurn();
            }
        }
    }

    /** @return whether a stage holds the input now; for tests */
    boolean holdsInput() {
        return this.inputHeld;
    }

    @Override
    public void pauseReading() {
        if (!(boolean) READING_PAUSED.getAndSet(this, true)) {
            // A turn leaves the registration without input (or, one-shot, arms it so).
            requestTurn();
        }
    }

    @Override
    public void resumeReading() {
        if ((boolean) READING_PAUSED.getAndSet(this, false)) {
            // What waited raised no edge of its own: the next turn reads it.
            this.readingResumed = true;
            requestTurn();
        }
    }

    @Override
    public boolean isReadingPaused() {
        return this.readingPaused;
    }
}
