package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;

import dev.sockstate.port.Events;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.DatagramHandler;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Setting;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.engine.turn.Worker;
import dev.sockstate.server.observer.ServerObserver;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServerSettingsTest {

    private final EchoHandler handler = new EchoHandler();

    @Test
    void aPersistentTriggerOnAGroupWithManyWorkersIsRefusedWithWhatToDoInstead() {
        ListenerSettings poll = ListenerSettings.tcp("poll").trigger(Trigger.LEVEL_PERSISTENT).handler(this.handler).build();
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of("default", 4)),
                        List.of(poll), ServerObserver.NONE))
                .withMessageContaining("Listener 'poll' uses a persistent trigger (LEVEL_PERSISTENT)")
                .withMessageContaining("has 4 workers")
                .withMessageContaining("worker group of its own with one worker");
    }

    @Test
    void theExclusiveEdgeModeSharesAGroupWithManyWorkers() {
        ListenerSettings echo = ListenerSettings.tcp("echo").exclusiveEdge(true).handler(this.handler).build();
        assertThat(echo.trigger()).isEqualTo(Trigger.EDGE_PERSISTENT);
        assertThat(echo.exclusiveEdge()).isTrue();
        assertThatNoException().isThrownBy(() -> new SocketServer(ServerFixture.backend(),
                List.of(WorkerGroupSettings.of("default", 4)), List.of(echo), ServerObserver.NONE));
        ListenerSettings plain = ListenerSettings.tcp("plain").handler(this.handler).build();
        assertThat(plain.trigger()).as("unset: the worker group's default").isNull();
        assertThat(plain.triggerOn(WorkerGroupSettings.of("shared", 2))).isEqualTo(Trigger.LEVEL_ONESHOT);
        assertThat(plain.triggerOn(WorkerGroupSettings.of("one", 1))).isEqualTo(Trigger.LEVEL_ONESHOT);
        assertThat(plain.triggerOn(WorkerGroupSettings.of("own", 2).withPortPerWorker(true))).isEqualTo(Trigger.LEVEL_PERSISTENT);
        assertThat(ListenerSettings.tcp("executor").handler(this.handler).handlerExecutor(Runnable::run).build()
                .triggerOn(WorkerGroupSettings.of("own", 2).withPortPerWorker(true))).isEqualTo(Trigger.LEVEL_ONESHOT);
        assertThat(ListenerSettings.tcp("set").handler(this.handler).trigger(Trigger.EDGE_ONESHOT).build()
                .triggerOn(WorkerGroupSettings.of("own", 2).withPortPerWorker(true))).isEqualTo(Trigger.EDGE_ONESHOT);
    }

    @Test
    void theExclusiveEdgeModeIsForTcpWithAnEdgePersistentTriggerOnly() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ListenerSettings.tcp("echo").exclusiveEdge(true).trigger(Trigger.LEVEL_ONESHOT)
                        .handler(this.handler).build())
                .withMessageContaining("Listener 'echo': trigger is LEVEL_ONESHOT, it must be unset or EDGE_PERSISTENT");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ListenerSettings.udp("udp").exclusiveEdge(true).handler((endpoint, data, sender) -> {
                }).build())
                .withMessageContaining("Listener 'udp': exclusiveEdge is true");
    }

    @Test
    void aListenerNamingAnUnknownGroupIsRefused() {
        ListenerSettings echo = ListenerSettings.tcp("echo").group("fast").handler(this.handler).build();
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of("default", 1)),
                        List.of(echo), ServerObserver.NONE))
                .withMessageContaining("names worker group 'fast', which is not defined");
    }

    @Test
    void invalidListenerValuesNameTheListenerAndTheSetting() {
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ListenerSettings.tcp("echo").portNumber(70000).handler(this.handler).build())
                .withMessage("Listener 'echo': portNumber is 70000, it must be between 0 and 65535")
                .satisfies((refused) -> {
                    assertThat(refused.ownerName()).isEqualTo("echo");
                    assertThat(refused.setting()).isEqualTo(Setting.PORT_NUMBER);
                    assertThat(refused.value()).isEqualTo(70000);
                });
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ListenerSettings.tcp("echo").maxConnections(0).handler(this.handler).build())
                .withMessageContaining("maxConnections is 0")
                .satisfies((refused) -> assertThat(refused.setting()).isEqualTo(Setting.MAX_CONNECTIONS));
        assertThatIllegalArgumentException().isThrownBy(() -> ListenerSettings.tcp("echo").build())
                .withMessageContaining("handler is none, it must be a ConnectionHandler");
        assertThatIllegalArgumentException().isThrownBy(() -> ListenerSettings.udp("udp").handler(this.handler).build())
                .withMessageContaining("it must be a DatagramHandler");
        assertThatExceptionOfType(InvalidSettingException.class).isThrownBy(() -> WorkerGroupSettings.of("default", 0))
                .withMessageContaining("Worker group 'default': workers is 0")
                .satisfies((refused) -> assertThat(refused.setting()).isEqualTo(Setting.WORKERS));
    }

    @Test
    void aTcpListenerWhoseConnectionsWouldNotHearAPeersCloseIsRefusedWithTheReason() {
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> ListenerSettings.tcp("echo").events(Events.IN).handler(this.handler).build())
                .withMessageContaining("Listener 'echo': events is IN, it must be IN|HANGUP for a TCP listener")
                .withMessageContaining("Windows may never report that a peer closed")
                .satisfies((refused) -> assertThat(refused.setting()).isEqualTo(Setting.EVENTS));
        assertThat(ListenerSettings.tcp("echo").handler(this.handler).build().events()).isEqualTo(Events.IN | Events.HANGUP);
    }

    @Test
    void twoListenersWithOneNameAreRefused() {
        ListenerSettings echo = ListenerSettings.tcp("echo").handler(this.handler).build();
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new SocketServer(ServerFixture.backend(), List.of(WorkerGroupSettings.of("default", 1)),
                        List.of(echo, echo), ServerObserver.NONE))
                .withMessageContaining("defined twice");
    }
}
