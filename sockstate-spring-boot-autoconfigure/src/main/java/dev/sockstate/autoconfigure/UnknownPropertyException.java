package dev.sockstate.autoconfigure;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Keys under {@code sockstate.} that no property has: refused at start-up, as a typo would otherwise
 * leave the setting at its default unnoticed.
 */
public class UnknownPropertyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<String> names;

    private final List<@Nullable String> nearest;

    /**
     * @param names the unknown keys
     * @param nearest for each, the nearest key the same place takes, or {@code null}
     */
    UnknownPropertyException(List<String> names, List<@Nullable String> nearest) {
        super("Unknown properties: " + String.join(", ", names));
        this.names = List.copyOf(names);
        this.nearest = Collections.unmodifiableList(new ArrayList<>(nearest));
    }

    /** @return the unknown keys */
    public List<String> names() {
        return this.names;
    }

    /** @return for each unknown key, in the same order, the nearest key the same place takes, or {@code null} */
    public List<@Nullable String> nearest() {
        return this.nearest;
    }
}
