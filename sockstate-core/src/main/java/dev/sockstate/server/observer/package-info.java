/**
 * The observer SPI: what the server reports as it works, for a metrics binding to implement
 * (the starter's Micrometer binding does). Observers are resolved once per listener and worker at
 * start-up, so the hot path calls a resolved object; {@link dev.sockstate.server.observer.ServerObserver#NONE}
 * reports nothing and costs nothing.
 */
@NullMarked
package dev.sockstate.server.observer;

import org.jspecify.annotations.NullMarked;
