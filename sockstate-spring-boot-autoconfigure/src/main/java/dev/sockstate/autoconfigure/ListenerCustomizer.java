package dev.sockstate.autoconfigure;

import dev.sockstate.server.ListenerSettings;

/** Adjusts a listener's settings after the properties and its handler are applied. */
@FunctionalInterface
public interface ListenerCustomizer {

    /**
     * @param name the listener's name
     * @param listener its settings, to change in place
     */
    void customize(String name, ListenerSettings.Builder listener);
}
