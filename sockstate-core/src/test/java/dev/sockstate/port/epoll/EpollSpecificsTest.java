package dev.sockstate.port.epoll;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Events;
import dev.sockstate.port.PortTestSupport;
import dev.sockstate.port.Trigger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * What epoll does beyond the portable guarantees of {@link dev.sockstate.port.NotificationPortContract}:
 * the runtime may rely on these only through {@link Backend#edgeOnEveryArrival()}, or not at all.
 */
@EnabledOnOs(OS.LINUX)
class EpollSpecificsTest extends PortTestSupport {

    @Override
    protected Backend backend() {
        return new EpollBackend();
    }

    @Test
    void advertisesAnEdgeOnEveryArrival() {
        assertThat(backend().edgeOnEveryArrival()).isTrue();
    }

    @Test
    void anEdgeIsRaisedForEveryArrivalEvenWhileEarlierDataIsUnread() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.EDGE_PERSISTENT);
        connection.send("one");
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        assertThat(dequeueFor(SETTLE_MILLIS)).as("no new edge without new data").isEmpty();
        connection.send("two");
        assertThat(awaitEvents(KEY)).as("new data is a new edge, though 'one' is unread").isEqualTo(Events.IN);
        assertThat(drain(connection.handle())).isEqualTo("onetwo");
    }
}
