package dev.sockstate.server.engine.turn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.Events;
import dev.sockstate.port.KernelFreePort;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.RegistrationBatch;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.observer.WorkerObserver;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * When a worker yields its processor: once before each dequeue that may wait after sockets were
 * served, never before one that may not (changes to carry), never after a dequeue that served
 * nothing, and never when its group says not to. A scripted port records each call's timeout and the
 * yields made before it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WorkerYieldTest {

    private static final long TIMEOUT_MILLIS = 1000;

    private final AtomicInteger yields = new AtomicInteger();

    @Test
    void aWorkerYieldsOnceBeforeEachWaitThatFollowsAServedBatchAndNeverAfterAnEmptyOne() throws Exception {
        List<Call> calls = run(true, Trigger.LEVEL_PERSISTENT, ChangeRules.EPOLL, 1, 1, 0, 0, 1, 0);
        assertThat(calls).extracting(Call::timeoutMillis).containsOnly(TIMEOUT_MILLIS);
        // Yields seen by each call: none before the first; one before each call after a served one.
        assertThat(calls).extracting(Call::yieldsBefore).containsExactly(0, 1, 2, 2, 2, 3, 3);
    }

    @Test
    void aDequeueThatCarriesChangesIsNotPrecededByAYieldAndTheWaitAfterItIs() throws Exception {
        // Windows' one-shot sockets re-arm in the next call, which then does not wait.
        List<Call> calls = run(true, Trigger.LEVEL_ONESHOT, new ChangeRules(false, true), 1, 0, 0);
        assertThat(calls).extracting(Call::timeoutMillis).containsExactly(TIMEOUT_MILLIS, 0L, TIMEOUT_MILLIS, TIMEOUT_MILLIS);
        assertThat(calls).extracting(Call::carried).containsExactly(0, 1, 0, 0);
        assertThat(calls).extracting(Call::yieldsBefore).as("the wait after the carried re-arm follows a served batch")
                .containsExactly(0, 0, 1, 1);
    }

    @Test
    void aGroupThatDoesNotYieldNeverYields() throws Exception {
        List<Call> calls = run(false, Trigger.LEVEL_PERSISTENT, ChangeRules.EPOLL, 1, 1, 0, 1);
        assertThat(calls).extracting(Call::yieldsBefore).containsOnly(0);
    }

    /**
     * Runs a worker over a port whose calls return, in turn, that many IN notifications of one socket
     * (0 or 1), then the stop message.
     * @return the calls the worker made, the last one the stop's
     */
    private List<Call> run(boolean yieldBeforeWait, Trigger trigger, ChangeRules rules, int... script) throws Exception {
        WorkerGroupSettings settings = WorkerGroupSettings.of(ListenerSettings.DEFAULT_GROUP, 1).withYieldBeforeWait(yieldBeforeWait);
        SocketTable table = new SocketTable(16);
        ScriptedPort port = new ScriptedPort(script, this.yields);
        Served socket = new Served(port, table, trigger, rules);
        table.add(socket);
        port.socketKey = socket.key();
        Worker worker = new Worker(settings, port, new NativeBuffer(ByteBuffer.allocateDirect(64), 0), table, WorkerObserver.NONE,
                this.yields::incrementAndGet);
        Thread thread = new Thread(worker, "yield-test-worker");
        thread.start();
        thread.join(TimeUnit.SECONDS.toMillis(20));
        assertThat(thread.isAlive()).as("the worker stopped at the end of the script").isFalse();
        assertThat(socket.served).isEqualTo(sum(script));
        return port.calls;
    }

    private static int sum(int[] script) {
        int sum = 0;
        for (int served : script) {
            sum += served;
        }
        return sum;
    }

    /** One dequeue call: its timeout, the changes it carried, and the yields made before it. */
    record Call(long timeoutMillis, int carried, int yieldsBefore) {
    }

    /** A port with no kernel behind it that answers its calls from a script, and then with the stop message. */
    private static final class ScriptedPort extends KernelFreePort {

        private final int[] script;

        private final AtomicInteger yields;

        final List<Call> calls = new ArrayList<>();

        long socketKey;

        ScriptedPort(int[] script, AtomicInteger yields) {
            super("scripted");
            this.script = script;
            this.yields = yields;
        }

        @Override
        protected int doProcess(RegistrationBatch changes, NotificationBatch notifications, long timeoutMillis) {
            int call = this.calls.size();
            this.calls.add(new Call(timeoutMillis, (changes != null) ? changes.size() : 0, this.yields.get()));
            if (call >= this.script.length) {
                storePosted(notifications, 0, Worker.STOP_KEY, 0);
                storeSize(notifications, 1);
                return 1;
            }
            int count = this.script[call];
            if (count > 0) {
                storeNotification(notifications, 0, this.socketKey, Events.IN);
            }
            storeSize(notifications, count);
            return count;
        }

    }

    /** A socket that counts its turns: a one-shot one asks to be armed for IN again after each, a persistent one changes nothing. */
    private static final class Served extends SocketTurn {

        private final Trigger trigger;

        int served;

        Served(ScriptedPort port, SocketTable table, Trigger trigger, ChangeRules rules) {
            super(port, null, table, 0, trigger, ListenerObserver.NONE, false, rules);
            this.trigger = trigger;
        }

        @Override
        protected boolean handle(Runner runner, int events) {
            this.served++;
            return true;
        }

        @Override
        protected int nextFilter() {
            return this.trigger.isOneShot() ? Events.IN : -1;
        }

        @Override
        protected void finish() {
        }
    }
}
