package dev.sockstate.autoconfigure;

import dev.sockstate.server.WorkerGroupSettings;

/** Adjusts a worker group's settings (threads, batch size, timeout...) after the properties are applied. */
@FunctionalInterface
public interface WorkerGroupCustomizer {

    /**
     * @param group the settings from the properties
     * @return the settings to use
     */
    WorkerGroupSettings customize(WorkerGroupSettings group);
}
