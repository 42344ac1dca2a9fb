package dev.sockstate.autoconfigure.diagnostics;

import dev.sockstate.autoconfigure.UnknownPropertyException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains keys under {@code sockstate.} that no property has, each with the nearest valid one. */
class UnknownPropertyFailureAnalyzer extends AbstractFailureAnalyzer<UnknownPropertyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnknownPropertyException cause) {
        StringBuilder description = new StringBuilder("No sockstate property has these keys:");
        StringBuilder action = new StringBuilder();
        for (int i = 0; i < cause.names().size(); i++) {
            String name = cause.names().get(i);
            String nearest = cause.nearest().get(i);
            description.append("\n\n    ").append(name);
            action.append((action.length() == 0) ? "" : "\n").append(name).append(": ")
                    .append((nearest != null) ? "did you mean " + nearest + "?" : "no key near it; remove it");
        }
        action.append("\n\nThe properties are listed in the IDE's completion of sockstate.* and in the reference.");
        return new FailureAnalysis(description.toString(), action.toString(), cause);
    }
}
