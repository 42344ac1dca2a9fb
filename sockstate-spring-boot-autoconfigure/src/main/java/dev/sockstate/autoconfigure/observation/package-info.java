/**
 * Micrometer {@code Observation}s around handler calls (opt-in with
 * {@code sockstate.observations.enabled}): a span per call, named by a replaceable convention.
 */
@NullMarked
package dev.sockstate.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
