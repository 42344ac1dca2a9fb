package dev.sockstate.port;

/**
 * A port with no kernel behind it, for tests and benchmarks that drive a worker: a subclass says
 * what each dequeue returns; a posted message goes nowhere, and closing has nothing to wake or free.
 */
public abstract class KernelFreePort extends AbstractNotificationPort {

    private final String name;

    /** @param name the backend name it reports */
    protected KernelFreePort(String name) {
        this.name = name;
    }

    @Override
    protected void doPost(long key, int payload) {
    }

    @Override
    protected void wakeAllForClose() {
    }

    @Override
    protected void release() {
    }

    @Override
    public String backendName() {
        return this.name;
    }
}
