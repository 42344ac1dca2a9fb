/**
 * The Micrometer binding of the core's observer SPI: sockstate's meters, resolved once at start-up.
 */
package dev.sockstate.autoconfigure.metrics;
