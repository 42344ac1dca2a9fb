package dev.sockstate.server.engine;

import dev.sockstate.port.Backend;
import dev.sockstate.port.ForwardingBackend;
import dev.sockstate.port.ForwardingPort;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.Operation;
import dev.sockstate.port.RegistrationBatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A backend whose ports report the registration changes a rule names refused ({@code EBADF}), though
 * they were applied: how the engine hears of a port that refuses a change (epoll's watch limit, a
 * socket gone), on the real backend otherwise.
 */
final class RefusingBackend extends ForwardingBackend {

    /** Which changes are refused. */
    @FunctionalInterface
    interface Rule {

        /**
         * @param operation the change
         * @param socket the socket it changes
         * @param key its completion key
         * @return whether the port reports it refused
         */
        boolean refuses(Operation operation, long socket, long key);
    }

    private final Rule rule;

    /** Changes refused so far. */
    final AtomicInteger refusals = new AtomicInteger();

    RefusingBackend(Backend real, Rule rule) {
        super(real);
        this.rule = rule;
    }

    @Override
    public NotificationPort openPort() throws NativeIoException {
        return new ForwardingPort(super.openPort()) {

            @Override
            protected int doProcess(RegistrationBatch changes, NotificationBatch notifications, long timeoutMillis) throws NativeIoException {
                int count = super.doProcess(changes, notifications, timeoutMillis);
                for (int i = 0; changes != null && i < changes.size(); i++) {
                    if (!changes.failed(i) && RefusingBackend.this.rule.refuses(changes.operation(i), changes.socket(i), changes.key(i))) {
                        storeResult(changes, i, NativeError.BAD_DESCRIPTOR, 9);
                        RefusingBackend.this.refusals.incrementAndGet();
                    }
                }
                return count;
            }
        };
    }
}
