package dev.sockstate.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.observer.WorkerObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** The meters of what the workers report, read as Micrometer reads them. */
class MicrometerServerObserverTests {

    @Test
    void aWorkerThatDiedIsCountedInItsGroup() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerServerObserver observer = new MicrometerServerObserver(registry);
        WorkerObserver first = observer.worker("default", 1);
        observer.worker("default", 2);
        WorkerObserver poller = observer.worker("poll", 1);
        first.died(new AssertionError("gone"));
        poller.died(new AssertionError("gone too"));
        assertThat(registry.get("sockstate.workers.died").tag("group", "default").functionCounter().count()).isEqualTo(1);
        assertThat(registry.get("sockstate.workers.died").tag("group", "poll").functionCounter().count()).isEqualTo(1);
    }
}
