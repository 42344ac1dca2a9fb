package dev.sockstate.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.observer.WorkerObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** The meters of what the workers report, read as Micrometer reads them. */
@ExtendWith(OutputCaptureExtension.class)
class MicrometerServerObserverTests {

    @Test
    void aGroupOfManyWorkersRegistersItsDeathsCounterOnceAndMicrometerWarnsOfNothing(CapturedOutput output) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerServerObserver observer = new MicrometerServerObserver(registry);
        for (int worker = 1; worker <= 4; worker++) {
            observer.worker("default", worker);
        }
        assertThat(registry.find("sockstate.workers.died").functionCounters()).hasSize(1);
        assertThat(output).doesNotContain("sockstate.workers.died").doesNotContain("already registered");
    }

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
