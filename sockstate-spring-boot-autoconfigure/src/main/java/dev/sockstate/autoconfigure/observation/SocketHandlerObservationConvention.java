package dev.sockstate.autoconfigure.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names an observation of a handler call and its key values; a bean of this type replaces
 * {@link DefaultSocketHandlerObservationConvention}.
 */
public interface SocketHandlerObservationConvention extends ObservationConvention<SocketHandlerObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof SocketHandlerObservationContext;
    }
}
