package dev.sockstate.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a registration of one socket is notified of, by trigger and operation: the semantics every
 * port keeps, the real ones (through {@link NotificationPortContract}, which adds what takes real
 * sockets, many sockets or many threads) and the embedded test harness's port in memory, which runs
 * this suite on its own, so that the two cannot drift. The tests touch the peer only through
 * {@link Connection#send}, {@link Connection#hangUp} and {@link Connection#reset}.
 */
public abstract class PortSemanticsContract extends PortTestSupport {

    @Test
    void levelOneShotNotifiesOnceUntilEnabledAgain() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        connection.send("ping");
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        assertThat(dequeueFor(SETTLE_MILLIS)).as("disabled after one notification").isEmpty();
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        assertThat(awaitEvents(KEY)).as("unread data is still there after re-arming").isEqualTo(Events.IN);
    }

    @Test
    void levelPersistentNotifiesWhileDataIsUnread() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_PERSISTENT);
        connection.send("ping");
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        drain(connection.handle());
        assertThat(dequeueFor(SETTLE_MILLIS)).as("once drained, at most a stale IN already queued")
                .hasSizeLessThanOrEqualTo(1).allMatch((events) -> events == Events.IN);
        assertThat(dequeueFor(SETTLE_MILLIS)).as("then nothing").isEmpty();
    }

    @Test
    void edgePersistentNotifiesAChangeAfterEnablingAndAgainOnceDrained() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.EDGE_PERSISTENT);
        connection.send("one");
        assertThat(awaitEvents(KEY)).as("data arriving after the enable is an edge").isEqualTo(Events.IN);
        assertThat(dequeueFor(SETTLE_MILLIS)).as("no new edge without new data").isEmpty();
        assertThat(drain(connection.handle())).as("read until would-block").isEqualTo("one");
        connection.send("two");
        assertThat(awaitEvents(KEY)).as("new data after draining is a new edge").isEqualTo(Events.IN);
        assertThat(drain(connection.handle())).isEqualTo("two");
    }

    @Test
    void dataUnreadWhenAnEdgeRegistrationIsEnabledIsFoundByReadingAfterTheEnable() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        connection.send("early");
        assertThat(awaitEvents(KEY)).as("the data has arrived").isEqualTo(Events.IN);
        register(connection.handle(), Events.IN, Trigger.EDGE_PERSISTENT);
        // No edge is promised for it: the reader reads until would-block after every enable.
        assertThat(drain(connection.handle())).isEqualTo("early");
        connection.send("late");
        StringBuilder read = new StringBuilder();
        while (read.indexOf("late") < 0) {
            assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
            read.append(drain(connection.handle()));
        }
        assertThat(read).hasToString("late");
    }

    @Test
    void edgeOneShotNotifiesOnceThenStaysDisabled() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.EDGE_ONESHOT);
        connection.send("one");
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        connection.send("two");
        assertThat(dequeueFor(SETTLE_MILLIS)).as("disabled after one notification").isEmpty();
        assertThat(drain(connection.handle())).isEqualTo("onetwo");
    }

    @Test
    void outIsDeliveredWhenTheSocketCanBeWritten() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.OUT, Trigger.LEVEL_ONESHOT);
        assertThat(awaitEvents(KEY)).isEqualTo(Events.OUT);
    }

    @Test
    void levelTriggeredPersistentOutIsDeliveredWhileTheSocketStaysWritable() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.OUT, Trigger.LEVEL_PERSISTENT);
        assertThat(awaitEvents(KEY)).isEqualTo(Events.OUT);
        assertThat(awaitEvents(KEY)).isEqualTo(Events.OUT);
    }

    @Test
    void hangupIsDeliveredWhenThePeerCloses() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN | Events.HANGUP, Trigger.LEVEL_ONESHOT);
        connection.hangUp();
        // A backend that learns readiness only (a selector) says IN, and the read below tells the FIN.
        int expected = backend().notifiesHangups() ? Events.HANGUP : Events.IN;
        assertThat(awaitEvents(KEY) & expected).isEqualTo(expected);
        NativeBuffer buffer = this.sockets.allocate(16);
        assertThat(this.sockets.recv(connection.handle(), buffer)).as("end of stream").isZero();
    }

    @Test
    void errIsDeliveredWhenThePeerResetsTheConnection() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        connection.reset();
        int events = awaitEvents(KEY);
        if (backend().notifiesErrors()) {
            assertThat(events & Events.ERR).isEqualTo(Events.ERR);
        }
        else {
            // A backend that learns readiness only (a JDK selector) reports the reset as IN, which
            // the portable guarantee allows: ERR is learnt from a read, as the read below does.
            assertThat(events & Events.IN).isEqualTo(Events.IN);
        }
        // SO_ERROR may read nothing once ERR was delivered (Windows): the error is learnt from recv.
        assertThatExceptionOfType(NativeIoException.class)
                .isThrownBy(() -> this.sockets.recv(connection.handle(), this.sockets.allocate(16)))
                .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.CONNECTION_RESET));
    }

    @Test
    void removeIsDeliveredOnceAndNothingFollowsIt() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_PERSISTENT);
        connection.send("before");
        RegistrationBatch remove = new RegistrationBatch(1);
        remove.remove(connection.handle(), KEY);
        this.port.apply(remove);
        assertThat(remove.failed(0)).isFalse();
        connection.send("after");
        List<Integer> events = new ArrayList<>();
        NotificationBatch batch = new NotificationBatch(8);
        long deadline = System.currentTimeMillis() + WAIT_MILLIS;
        while (events.stream().noneMatch((mask) -> (mask & Events.REMOVE) != 0) && System.currentTimeMillis() < deadline) {
            collect(batch, 100, events);
        }
        assertThat(events).as("notifications queued before the REMOVE may come first, or joined with it")
                .isNotEmpty().allMatch((mask) -> (mask & ~(Events.IN | Events.REMOVE)) == 0);
        assertThat(events.get(events.size() - 1) & Events.REMOVE).as("REMOVE comes last").isEqualTo(Events.REMOVE);
        collect(batch, SETTLE_MILLIS, events);
        assertThat(events.stream().filter((mask) -> (mask & Events.REMOVE) != 0)).as("exactly one REMOVE").hasSize(1);
        assertThat(events.get(events.size() - 1) & Events.REMOVE).as("nothing after the REMOVE").isEqualTo(Events.REMOVE);
    }

    @Test
    void deregisterCompletesWhenTheRemoveIsDequeued() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        var removal = this.port.deregister(connection.handle(), KEY);
        assertThat(removal).isNotDone();
        assertThat(awaitEvents(KEY)).isEqualTo(Events.REMOVE);
        assertThat(removal).isCompleted();
    }

    @Test
    void deregisterFailsForASocketThatIsNotRegistered() throws Exception {
        Connection connection = connect();
        var removal = this.port.deregister(connection.handle(), KEY);
        assertThat(removal).isCompletedExceptionally();
        // Which code says so is the backend's own (see its specifics tests).
        assertThatThrownBy(removal::join).hasCauseInstanceOf(NativeIoException.class);
    }

    @Test
    void disableStopsNotificationsAndEnableResumesThem() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_PERSISTENT);
        RegistrationBatch disable = new RegistrationBatch(1);
        disable.disable(connection.handle(), KEY);
        this.port.apply(disable);
        assertThat(disable.failed(0)).isFalse();
        connection.send("ping");
        assertThat(dequeueFor(SETTLE_MILLIS)).as("nothing while disabled").isEmpty();
        register(connection.handle(), Events.IN, Trigger.LEVEL_PERSISTENT);
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
    }

    @Test
    void postedMessagesAreDequeuedOnceEachWithTheirKeyAndPayload() throws Exception {
        for (int i = 0; i < 5; i++) {
            this.port.post(100 + i, i * 10);
        }
        List<String> received = new ArrayList<>();
        NotificationBatch batch = new NotificationBatch(2);
        long deadline = System.currentTimeMillis() + WAIT_MILLIS;
        while (received.size() < 5 && System.currentTimeMillis() < deadline) {
            int count = this.port.dequeue(batch, 100);
            for (int i = 0; i < count; i++) {
                assertThat(batch.isPosted(i)).isTrue();
                received.add(batch.key(i) + ":" + batch.payload(i));
            }
        }
        assertThat(received).containsExactlyInAnyOrder("100:0", "101:10", "102:20", "103:30", "104:40");
        assertThat(this.port.dequeue(batch, SETTLE_MILLIS)).isZero();
    }
}
