/**
 * The {@code sockstate} Actuator endpoint and health indicator, and the readiness group they join.
 */
@NullMarked
package dev.sockstate.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
