package dev.sockstate.port;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real port whose results a test may turn into refusals: every ENABLE of one completion key after
 * the first {@code allowed} is reported refused ({@code EBADF}), as a port that could not re-arm a
 * socket would report it. The change itself was applied by the real port.
 */
public class RefusingPort extends ForwardingPort {

    private final long key;

    private final int allowed;

    private final AtomicInteger enables = new AtomicInteger();

    /**
     * @param real the port that does the work
     * @param key the completion key whose re-arms are refused
     * @param allowed how many ENABLEs of that key succeed first
     */
    public RefusingPort(NotificationPort real, long key, int allowed) {
        super(real);
        this.key = key;
        this.allowed = allowed;
    }

    @Override
    protected int doProcess(RegistrationBatch changes, NotificationBatch notifications, long timeoutMillis)
            throws NativeIoException {
        int count = super.doProcess(changes, notifications, timeoutMillis);
        if (changes != null) {
            for (int i = 0; i < changes.size(); i++) {
                if (changes.operation(i) == Operation.ENABLE && changes.key(i) == this.key && !changes.failed(i)
                        && this.enables.incrementAndGet() > this.allowed) {
                    storeResult(changes, i, NativeError.BAD_DESCRIPTOR, 9);
                }
            }
        }
        return count;
    }

    /** @return the ENABLEs of the key seen so far */
    public int enables() {
        return this.enables.get();
    }
}
