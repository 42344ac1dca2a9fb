/**
 * The Micrometer binding of the core's observer SPI: sockstate's meters, resolved once at start-up.
 */
@NullMarked
package dev.sockstate.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
