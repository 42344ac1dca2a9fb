package dev.sockstate.autoconfigure.metrics;

import dev.sockstate.port.Backend;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Adds {@code backend=<name>} to the meters of the notification ports: the dequeues, what they
 * notified and the registrations, whose figures mean what the backend makes them mean. The backend
 * is asked for when the first such meter is made (the server's start), not before.
 */
final class BackendTag implements MeterFilter {

    /** The meters that count the ports' work: these names, and the names below them. */
    private static final List<String> PORT_METERS = List.of("sockstate.dequeues", "sockstate.dequeue", "sockstate.notifications",
            "sockstate.registrations");

    private final ObjectProvider<Backend> backend;

    private volatile @Nullable Tag tag;

    BackendTag(ObjectProvider<Backend> backend) {
        this.backend = backend;
    }

    @Override
    public Meter.Id map(Meter.Id id) {
        if (!isPortMeter(id.getName())) {
            return id;
        }
        Tag backendTag = tag();
        return (backendTag != null) ? id.withTag(backendTag) : id;
    }

    private static boolean isPortMeter(String name) {
        for (String meter : PORT_METERS) {
            if (name.equals(meter) || name.startsWith(meter + ".")) {
                return true;
            }
        }
        return false;
    }

    private @Nullable Tag tag() {
        Tag known = this.tag;
        if (known == null) {
            Backend chosen = this.backend.getIfAvailable();
            if (chosen != null) {
                known = Tag.of("backend", chosen.name());
                this.tag = known;
            }
        }
        return known;
    }
}
