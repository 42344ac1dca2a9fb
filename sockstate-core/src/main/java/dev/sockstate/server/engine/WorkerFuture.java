package dev.sockstate.server.engine;

import dev.sockstate.port.NotificationPort;
import dev.sockstate.server.client.BlockingOperationException;
import dev.sockstate.server.engine.turn.Worker;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * A client's future that the workers of one port complete (a request's reply, read on its
 * connection; a connection of its own, connected there), which those workers may therefore not wait
 * for: {@code get} and {@code join} on one of them throw {@link BlockingOperationException} at once
 * while it is not complete, as the wait would never end. Its dependents ({@code thenApply}, say)
 * refuse the same waits.
 * @param <T> what it completes with
 */
final class WorkerFuture<T> extends CompletableFuture<T> {

    /** The client's requests' terms: its names, for the refusal's message. */
    private final RequestTerms terms;

    /** What it is the future of, for the refusal's message: "a request's reply", say. */
    private final String of;

    /** The port whose workers complete it; {@code null} until known. */
    private volatile @Nullable NotificationPort completedOn;

    WorkerFuture(RequestTerms terms, String of) {
        this.terms = terms;
        this.of = of;
    }

    /** @param port the port whose workers complete it: that of the connection it waits on */
    void completedOn(NotificationPort port) {
        this.completedOn = port;
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        refuseOnItsWorker("get()");
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        refuseOnItsWorker("get(timeout)");
        return super.get(timeout, unit);
    }

    @Override
    public T join() {
        refuseOnItsWorker("join()");
        return super.join();
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        WorkerFuture<U> dependent = new WorkerFuture<>(this.terms, this.of);
        dependent.completedOn = this.completedOn;
        return dependent;
    }

    private void refuseOnItsWorker(String call) {
        NotificationPort port = this.completedOn;
        if (port == null || isDone() || Worker.currentPort() != port) {
            return;
        }
        throw new BlockingOperationException(this.terms.client, this.terms.label + ": " + call + " on " + this.of
                + " called on the worker thread '" + Thread.currentThread().getName() + "', which has to complete it: it would"
                + " wait for ever, and its other connections with it. Take the outcome where it comes (a ReplyHandler,"
                + " or thenAccept/whenComplete on the future), or give the handler that waits a handler-executor");
    }
}
