package dev.sockstate.server.engine.embedded;

import dev.sockstate.port.AbstractNotificationPort;
import dev.sockstate.port.Events;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.RegistrationBatch;
import dev.sockstate.port.Trigger;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A notification port in memory for the one {@link EmbeddedSocket}: it keeps the port contract as
 * the real ports do (the shared semantic suite runs it beside epoll's and Windows'), without a
 * thread or a descriptor. Changes are applied at once, in the call that carries them. A dequeue
 * hands out posted messages first, then the REMOVE notification, then the events the socket is
 * ready for: a level-triggered registration is notified while the socket is ready, an
 * edge-triggered one when the socket's state changed (or it was enabled) since its last
 * notification, and a one-shot one is disarmed by its notification. Closing the socket drops its
 * registration silently. With nothing to hand out, a dequeue waits for a posted message until its
 * timeout: nothing else changes the socket while its one driving thread waits. Messages may be
 * posted from any thread; everything else is the driving thread's.
 */
public final class EmbeddedPort extends AbstractNotificationPort {

    private final EmbeddedSocket socket;

    /** Posted messages, from any thread. */
    private final BlockingQueue<Posted> posted = new LinkedBlockingQueue<>();

    private boolean registered;

    private long key;

    private Trigger trigger;

    /** The events the registration asks for; -1 while disarmed (by a one-shot notification or a DISABLE). */
    private int filter = -1;

    /** Edge-triggered: the socket's {@link EmbeddedSocket#changes() changes} when last notified. */
    private long changesSeen;

    /** Edge-triggered: whether an enable asks for a look at the socket afresh. */
    private boolean enabledSinceNotified;

    /** Whether the REMOVE notification is due, and its key. */
    private boolean removeDue;

    private long removedKey;

    /** @param socket the one socket registered here */
    public EmbeddedPort(EmbeddedSocket socket) {
        this.socket = socket;
    }

    @Override
    protected int doProcess(@Nullable RegistrationBatch changes, @Nullable NotificationBatch notifications, long timeoutMillis) {
        for (int i = 0; changes != null && i < changes.size(); i++) {
            apply(changes, i);
        }
        if (notifications == null) {
            return 0;
        }
        int count = fill(notifications);
        if (count == 0 && timeoutMillis != 0) {
            Posted next = awaitPost(timeoutMillis);
            if (next != null) {
                storePosted(notifications, count++, next.key(), next.payload());
            }
        }
        storeSize(notifications, count);
        return count;
    }

    private void apply(RegistrationBatch changes, int i) {
        long handle = changes.socket(i);
        if (handle != EmbeddedSocket.HANDLE || this.socket.closed()) {
            storeResult(changes, i, NativeError.BAD_DESCRIPTOR, 0);
            return;
        }
        dropIfClosed();
        switch (changes.operation(i)) {
            case ENABLE -> {
                this.registered = true;
                this.key = changes.key(i);
                this.trigger = Trigger.of(changes.triggerFlags(i));
                this.filter = changes.filter(i);
                this.enabledSinceNotified = true;
            }
            case DISABLE -> {
                if (!this.registered) {
                    storeResult(changes, i, NativeError.NOT_REGISTERED, 0);
                    return;
                }
                this.filter = -1;
            }
            default -> {
                if (!this.registered) {
                    storeResult(changes, i, NativeError.NOT_REGISTERED, 0);
                    return;
                }
                this.registered = false;
                this.filter = -1;
                this.removeDue = true;
                this.removedKey = changes.key(i);
            }
        }
        storeResult(changes, i, null, 0);
    }

    /** @return how many notifications were stored: posted messages, the REMOVE, the socket's events, in that order */
    private int fill(NotificationBatch batch) {
        int count = 0;
        Posted next;
        while (count < batch.capacity() && (next = this.posted.poll()) != null) {
            storePosted(batch, count++, next.key(), next.payload());
        }
        if (count < batch.capacity() && this.removeDue) {
            this.removeDue = false;
            storeNotification(batch, count++, this.removedKey, Events.REMOVE);
        }
        else if (count < batch.capacity()) {
            int events = readyEvents();
            if (events != 0) {
                this.changesSeen = this.socket.changes();
                this.enabledSinceNotified = false;
                if (this.trigger.isOneShot()) {
                    this.filter = -1;
                }
                storeNotification(batch, count++, this.key, events);
            }
        }
        return count;
    }

    /** @return the events to notify now, zero when none */
    private int readyEvents() {
        dropIfClosed();
        if (!this.registered || this.filter < 0) {
            return 0;
        }
        if (this.trigger.isEdge() && !this.enabledSinceNotified && this.socket.changes() == this.changesSeen) {
            return 0;
        }
        int ready = 0;
        if (this.socket.errorPending()) {
            ready |= Events.ERR;
        }
        ready |= this.socket.readable() ? Events.IN : 0;
        ready |= this.socket.peerShut() ? Events.HANGUP : 0;
        // The socket takes every send at once: it is writable until its output is shut.
        ready |= this.socket.outputShut() ? 0 : Events.OUT;
        // An error is reported whatever the filter asks for.
        return ready & (this.filter | Events.ERR);
    }

    /** A closed socket leaves its port silently, as a real one does. */
    private void dropIfClosed() {
        if (this.registered && this.socket.closed()) {
            this.registered = false;
            this.filter = -1;
        }
    }

    private @Nullable Posted awaitPost(long timeoutMillis) {
        try {
            return (timeoutMillis < 0) ? this.posted.take() : this.posted.poll(timeoutMillis, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @Override
    protected void doPost(long key, int payload) {
        this.posted.add(new Posted(key, payload));
    }

    /** A waiter for a post is woken by one that says the port closed. */
    @Override
    protected void wakeAllForClose() {
        this.posted.add(new Posted(0, 0));
    }

    /** Nothing to release: the port holds no native resource. */
    @Override
    protected void release() {
    }

    @Override
    public String backendName() {
        return "embedded";
    }

    @Override
    public String toString() {
        return "embedded notification port";
    }

    private record Posted(long key, int payload) {
    }
}
