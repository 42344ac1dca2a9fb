package dev.sockstate.port;

/** A backend that passes every call to another; tests override the calls they watch or change. */
public class ForwardingBackend implements Backend {

    private final Backend delegate;

    public ForwardingBackend(Backend delegate) {
        this.delegate = delegate;
    }

    @Override
    public String name() {
        return this.delegate.name();
    }

    @Override
    public Availability availability() {
        return this.delegate.availability();
    }

    @Override
    public boolean isNativeToThisSystem() {
        return this.delegate.isNativeToThisSystem();
    }

    @Override
    public boolean edgeOnEveryArrival() {
        return this.delegate.edgeOnEveryArrival();
    }

    @Override
    public boolean appliesChangesWithDequeue() {
        return this.delegate.appliesChangesWithDequeue();
    }

    @Override
    public boolean notifiesErrors() {
        return this.delegate.notifiesErrors();
    }

    @Override
    public boolean notifiesHangups() {
        return this.delegate.notifiesHangups();
    }

    @Override
    public boolean isPortable() {
        return this.delegate.isPortable();
    }

    @Override
    public NotificationPort openPort() throws NativeIoException {
        return this.delegate.openPort();
    }

    @Override
    public NativeSockets sockets() {
        return this.delegate.sockets();
    }
}
