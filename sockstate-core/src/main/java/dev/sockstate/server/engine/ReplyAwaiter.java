package dev.sockstate.server.engine;

/**
 * An accepted connection whose handler, on a worker, made requests of the server's clients, as those
 * requests see it: a graceful stop closes it only once their replies came, and their outcomes reach
 * their reply handlers as the connection's own handler calls do, never beside them.
 */
interface ReplyAwaiter {

    /** A request its handler made is sent: its reply is awaited; any thread. */
    void replyAwaited();

    /**
     * A request its handler made ended (answered, failed or timed out), and whoever took the outcome did
     * what it does with it; any thread. The last one lets a graceful stop's close go on.
     */
    void replyCame();

    /** @return whether the calling thread runs the connection's turns now: an outcome may be handed on here */
    boolean callsHere();

    /** @return whether the connection's last calls began (it ended): what comes now is handed on where it comes; any thread */
    boolean lastCallsBegan();

    /**
     * Hands a task to the connection's next turn, in which its owner runs it; once the connection's
     * last calls began, runs it here, under the lock of those calls, so never beside them; any thread.
     * @param task what hands an outcome on to its reply handler
     */
    void handToTurn(Runnable task);
}
