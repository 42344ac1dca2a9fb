/**
 * Failure analyzers that turn sockstate's start-up failures into what to change: a backend that
 * cannot run here, a listener that cannot bind, a handler bean that does not fit.
 */
@NullMarked
package dev.sockstate.autoconfigure.diagnostics;

import org.jspecify.annotations.NullMarked;
