/**
 * The {@code sockstate} Actuator endpoint and health indicator, and the readiness group they join.
 */
package dev.sockstate.autoconfigure.actuate;
