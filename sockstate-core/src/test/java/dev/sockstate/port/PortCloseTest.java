package dev.sockstate.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Closing a port while a thread waits in it: the native resources are released only after the
 * wake-up was written, never before (the wake-up would then go to a descriptor already closed, and
 * perhaps reused by another socket). The race is provoked with a port whose native part the test
 * holds at the point that matters.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PortCloseTest {

    @Test
    void theLastWaiterLeavingWhileTheWakeUpIsWrittenDoesNotReleaseThePortUnderIt() throws Exception {
        HeldPort port = new HeldPort();
        Thread waiter = new Thread(() -> {
            try {
                port.dequeue(new NotificationBatch(1), NotificationPort.INFINITE);
            }
            catch (PortClosedException | NativeIoException ex) {
                // woken by the close: expected
            }
        });
        waiter.start();
        assertThat(port.waiting.await(10, TimeUnit.SECONDS)).isTrue();
        Thread closer = new Thread(port::close);
        closer.start();
        assertThat(port.waking.await(10, TimeUnit.SECONDS)).isTrue();
        // The wake-up is being written; the waiter leaves the port now, as it would on its own.
        port.leave.countDown();
        waiter.join(10_000);
        assertThat(port.releasedWhileWaking.get()).as("released while the wake-up was written").isFalse();
        port.wakeWritten.countDown();
        closer.join(10_000);
        assertThat(port.released.get()).as("released once both left").isTrue();
        assertThatExceptionOfType(PortClosedException.class).isThrownBy(() -> port.post(1, 1));
    }

    /** A port whose dequeue and wake-up the test holds. */
    static final class HeldPort extends AbstractNotificationPort {

        final CountDownLatch waiting = new CountDownLatch(1);

        final CountDownLatch leave = new CountDownLatch(1);

        final CountDownLatch waking = new CountDownLatch(1);

        final CountDownLatch wakeWritten = new CountDownLatch(1);

        final AtomicBoolean inWake = new AtomicBoolean();

        final AtomicBoolean releasedWhileWaking = new AtomicBoolean();

        final AtomicBoolean released = new AtomicBoolean();

        @Override
        protected int doProcess(RegistrationBatch changes, NotificationBatch notifications, long timeoutMillis) {
            this.waiting.countDown();
            await(this.leave);
            storeSize(notifications, 0);
            return 0;
        }

        @Override
        protected void doPost(long key, int payload) {
        }

        @Override
        protected void wakeAllForClose() {
            this.inWake.set(true);
            this.waking.countDown();
            await(this.wakeWritten);
            this.inWake.set(false);
        }

        @Override
        protected void release() {
            this.releasedWhileWaking.compareAndSet(false, this.inWake.get());
            this.released.set(true);
        }

        @Override
        public String backendName() {
            return "held";
        }

        private static void await(CountDownLatch latch) {
            try {
                latch.await(10, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
