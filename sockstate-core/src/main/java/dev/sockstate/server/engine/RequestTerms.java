package dev.sockstate.server.engine;

import dev.sockstate.server.client.ClientException;
import dev.sockstate.server.framing.FramingException;
import dev.sockstate.server.observer.ListenerObserver;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * What the requests of one client share: the names their failures give, the request timeout, the
 * meters they end in, the key the requests a run of frames answers are counted together under, and
 * the log a reply handler's failure goes to. A request and its connection's link know their client
 * through this alone.
 */
final class RequestTerms {

    /** The client's name. */
    final String client;

    /** How messages name the client: {@code Client 'redis'}. */
    final String label;

    /** The key the requests answered in one run of frames are counted together under ({@link HandlerCalls#summingRequests()}). */
    final Object runKey;

    /** The request timeout, {@code null} for none. */
    private final @Nullable Duration timeout;

    private final ListenerObserver observer;

    private final BoundedLog failures;

    /**
     * @param client the client's name
     * @param label how messages name it
     * @param timeout its request timeout, {@code null} for none
     * @param observer its observer
     * @param runKey the key its requests answered in a run are counted together under
     * @param failures the log its reply handlers' failures go to, at most so often
     */
    RequestTerms(String client, String label, @Nullable Duration timeout, ListenerObserver observer, Object runKey, BoundedLog failures) {
        this.client = client;
        this.label = label;
        this.timeout = timeout;
        this.observer = observer;
        this.runKey = runKey;
        this.failures = failures;
    }

    /** @return whether requests have a timeout: only then is the time their bytes left taken */
    boolean timesRequests() {
        return this.timeout != null;
    }

    /** @return the request timeout, in nanoseconds */
    long timeoutNanos() {
        return this.timeout.toNanos();
    }

    /** @return the exception of a request that had no reply from the target within the timeout */
    ClientException timedOut(InetSocketAddress target) {
        return new ClientException(this.client, this.label + ": no reply from " + AddressText.of(target) + " within the request timeout of "
                + this.timeout.toMillis() + " ms", null);
    }

    /**
     * @param heldMillis how long the connection's worker has not taken its turn
     * @return the exception of a request ended at its timeout while the worker that reads its
     * connection's replies was held: no reply was read, which blames no backend
     */
    ClientException heldUp(InetSocketAddress target, long heldMillis) {
        return new ClientException(this.client, this.label + ": no reply read within the request timeout of "
                + this.timeout.toMillis() + " ms: the worker that reads the replies from " + AddressText.of(target)
                + " has not taken its turn for " + heldMillis + " ms (a handler holds it: one that blocks needs a handler-executor)", null);
    }

    /** @return the failure of a request whose connection to the target ended, for that reason, before it was sent */
    ClientException closedBeforeSent(InetSocketAddress target, @Nullable Throwable why) {
        return new ClientException(this.client, this.label + ": the connection to " + AddressText.of(target)
                + " closed before the request was sent", why);
    }

    /** @return the failure of a request whose reply from the target its framing refused (and skipped) */
    ClientException replyRefused(InetSocketAddress target, FramingException refusal) {
        return new ClientException(this.client, this.label + ": the reply from " + AddressText.of(target) + " was refused and skipped ("
                + refusal.getMessage() + ")", refusal);
    }

    /** A request ended this way, after that long: counted and timed. */
    void requestEnded(String outcome, long nanos) {
        this.observer.request(outcome, nanos);
    }

    /** A reply handler threw: logged (at most so often), the connection goes on. */
    void handlerFailed(String when, Throwable failure) {
        this.failures.warn(this.label + ": a reply handler failed " + when + ": " + failure, failure);
    }
}
