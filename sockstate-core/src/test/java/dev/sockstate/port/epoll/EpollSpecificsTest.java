package dev.sockstate.port.epoll;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Events;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.PortTestSupport;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.RegistrationBatch;
import dev.sockstate.port.Trigger;
import java.net.StandardProtocolFamily;
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
    void theEventLayoutTakenFromOsArchIsTheOneJnaKnowsForThisArchitecture() {
        boolean packed = "x86-64".equals(com.sun.jna.Platform.ARCH);
        assertThat(LinuxAbi.EPOLL_EVENT_SIZE).isEqualTo(packed ? 12 : 16);
        assertThat(LinuxAbi.EPOLL_EVENT_DATA_OFFSET).isEqualTo(packed ? 4 : 8);
        assertThat(LinuxAbi.isX86_64("amd64")).isTrue();
        assertThat(LinuxAbi.isX86_64("aarch64")).isFalse();
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

    @Test
    void anEdgeRegistrationEnabledOverUnreadDataNotifiesAtOnce() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        connection.send("early");
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        register(connection.handle(), Events.IN, Trigger.EDGE_PERSISTENT);
        assertThat(awaitEvents(KEY)).as("EPOLL_CTL_MOD with EPOLLET reports what already holds").isEqualTo(Events.IN);
    }

    @Test
    void anEdgeRegistrationEnabledOnAWritableSocketNotifiesOutOnce() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.OUT, Trigger.EDGE_PERSISTENT);
        assertThat(awaitEvents(KEY)).isEqualTo(Events.OUT);
        assertThat(dequeueFor(SETTLE_MILLIS)).as("no new edge while it stays writable").isEmpty();
    }

    @Test
    void aLevelNotificationIsCheckedWhenDequeuedSoNoneIsStale() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_PERSISTENT);
        connection.send("ping");
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        drain(connection.handle());
        assertThat(dequeueFor(SETTLE_MILLIS)).as("nothing once drained").isEmpty();
    }

    @Test
    void soErrorReportsTheResetAfterErr() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        connection.peer().setSoLinger(true, 0);
        connection.peer().close();
        assertThat(awaitEvents(KEY) & Events.ERR).isEqualTo(Events.ERR);
        NativeIoException error = this.sockets.takeError(connection.handle());
        assertThat(error).isNotNull();
        assertThat(error.error()).isEqualTo(NativeError.CONNECTION_RESET);
    }

    @Test
    void removeDropsWhatTheKernelHadNotYetReportedSoOnlyTheRemoveFollows() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_PERSISTENT);
        connection.send("before");
        RegistrationBatch remove = new RegistrationBatch(1);
        remove.remove(connection.handle(), KEY);
        this.port.apply(remove);
        assertThat(remove.failed(0)).isFalse();
        connection.send("after");
        assertThat(awaitEvents(KEY)).isEqualTo(Events.REMOVE);
        assertThat(dequeueFor(SETTLE_MILLIS)).isEmpty();
    }

    @Test
    void aCallThatAppliesARemoveReturnsItsNotificationWithoutPollingAndWhatElseIsReadyComesNext() throws Exception {
        Connection closing = connect();
        Connection ready = connect();
        long readyKey = KEY + 1;
        register(closing.handle(), Events.IN, Trigger.LEVEL_PERSISTENT);
        RegistrationBatch enable = new RegistrationBatch(1);
        enable.enable(ready.handle(), readyKey, Events.IN, Trigger.LEVEL_PERSISTENT);
        this.port.apply(enable);
        ready.send("ping");
        assertThat(awaitEvents(readyKey)).as("ready before the REMOVE's call").isEqualTo(Events.IN);
        RegistrationBatch remove = new RegistrationBatch(1);
        remove.remove(closing.handle(), KEY);
        NotificationBatch batch = new NotificationBatch(8);
        assertThat(this.port.process(remove, batch, WAIT_MILLIS)).as("notifications of the REMOVE's call").isEqualTo(1);
        assertThat(batch.key(0)).isEqualTo(KEY);
        assertThat(batch.events(0)).isEqualTo(Events.REMOVE);
        assertThat(awaitEvents(readyKey)).as("the other socket, on the next call").isEqualTo(Events.IN);
    }

    @Test
    void refusedChangesNameTheirCause() throws Exception {
        Connection unregistered = connect();
        long closed = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.sockets.close(closed);
        RegistrationBatch changes = new RegistrationBatch(3);
        changes.enable(closed, 1, Events.IN, Trigger.LEVEL_ONESHOT);
        changes.remove(unregistered.handle(), 2);
        changes.disable(unregistered.handle(), 3);
        this.port.apply(changes);
        assertThat(changes.error(0)).isEqualTo(NativeError.BAD_DESCRIPTOR);
        assertThat(changes.error(1)).isEqualTo(NativeError.NOT_REGISTERED);
        assertThat(changes.error(2)).isEqualTo(NativeError.NOT_REGISTERED);
    }
}
