package dev.sockstate.server;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A worker group as seen from outside.
 *
 * @param name the group's name
 * @param portOpen whether its notification port is open
 * @param workers the state of each worker thread
 */
public record WorkerGroupState(String name, boolean portOpen, List<WorkerState> workers) {

    /** @return whether the port is open and every worker alive */
    public boolean isHealthy() {
        return this.portOpen && this.workers.stream().allMatch(WorkerState::alive);
    }

    /**
     * One worker thread.
     * @param thread its name
     * @param alive whether it runs
     * @param failure why it died, or {@code null}
     */
    public record WorkerState(String thread, boolean alive, @Nullable String failure) {
    }
}
