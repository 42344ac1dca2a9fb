package dev.sockstate.port;

/** A port that passes every call to a real one; tests override what they watch or change. */
public class ForwardingPort extends AbstractNotificationPort {

    private final NotificationPort real;

    /** @param real the port that does the work */
    public ForwardingPort(NotificationPort real) {
        this.real = real;
    }

    @Override
    protected int doProcess(RegistrationBatch changes, NotificationBatch notifications, long timeoutMillis)
            throws NativeIoException {
        return this.real.process(changes, notifications, timeoutMillis);
    }

    @Override
    protected void doPost(long key, int payload) throws NativeIoException {
        this.real.post(key, payload);
    }

    @Override
    protected void wakeAllForClose() {
        this.real.close();
    }

    @Override
    protected void release() {
    }

    @Override
    public String backendName() {
        return this.real.backendName();
    }
}
