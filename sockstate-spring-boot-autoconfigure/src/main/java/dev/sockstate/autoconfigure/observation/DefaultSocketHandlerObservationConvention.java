package dev.sockstate.autoconfigure.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;

/**
 * Observations named {@code sockstate.handler.call}, shown as {@code <listener> <event>}; low-cardinality
 * keys {@code listener} and {@code event} (the keys of the meters, {@code sockstate.handler} among them) and
 * {@code network.transport}; the peer's
 * address and port only as high-cardinality keys ({@code network.peer.address},
 * {@code network.peer.port}), which go to spans and never to meters.
 */
public class DefaultSocketHandlerObservationConvention implements SocketHandlerObservationConvention {

    /** The observation's name. */
    public static final String NAME = "sockstate.handler.call";

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(SocketHandlerObservationContext context) {
        return context.getListener() + " " + context.getEvent();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(SocketHandlerObservationContext context) {
        return KeyValues.of(KeyValue.of("listener", context.getListener()),
                KeyValue.of("event", context.getEvent()), KeyValue.of("network.transport", context.getProtocol()));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(SocketHandlerObservationContext context) {
        if (context.getPeer() instanceof UnixDomainSocketAddress unix && !unix.getPath().toString().isEmpty()) {
            // A bound Unix domain socket's path, as OpenTelemetry's conventions name it; an unnamed one has none.
            return KeyValues.of(KeyValue.of("network.peer.address", unix.getPath().toString()));
        }
        if (!(context.getPeer() instanceof InetSocketAddress peer) || peer.getAddress() == null) {
            return KeyValues.empty();
        }
        return KeyValues.of(KeyValue.of("network.peer.address", peer.getAddress().getHostAddress()),
                KeyValue.of("network.peer.port", Integer.toString(peer.getPort())));
    }
}
