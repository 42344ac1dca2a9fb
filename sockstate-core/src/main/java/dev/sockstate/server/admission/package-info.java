/**
 * Who may connect to a listener and how fast: {@link dev.sockstate.server.admission.Admission}'s allow
 * and deny lists of {@link dev.sockstate.server.admission.AddressRange}s, its cap of connections per
 * source and its accept rates, given to {@link dev.sockstate.server.ListenerSettings.Builder#admission};
 * a connection it refuses is closed before any byte is read from it, counted by
 * {@link dev.sockstate.server.admission.Refusal}. This package knows only the JDK: it depends on no
 * other part of sockstate.
 */
@NullMarked
package dev.sockstate.server.admission;

import org.jspecify.annotations.NullMarked;
