package dev.sockstate.port;

import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A backend's availability, probed by the first caller that asks and kept, cause and all: the
 * probe binds native code or opens a selector, which happens once a process whatever the callers.
 * For backends (the SPI), beside {@link AbstractNativeSockets}.
 */
public final class ProbedOnce {

    private final Supplier<Availability> probe;

    private volatile @Nullable Availability result;

    /** @param probe what finds out whether the backend runs here; called once, and never throws */
    public ProbedOnce(Supplier<Availability> probe) {
        this.probe = probe;
    }

    /** @return the probe's result, probing on the first call */
    public Availability get() {
        Availability known = this.result;
        if (known == null) {
            synchronized (this) {
                known = this.result;
                if (known == null) {
                    known = this.probe.get();
                    this.result = known;
                }
            }
        }
        return known;
    }
}
