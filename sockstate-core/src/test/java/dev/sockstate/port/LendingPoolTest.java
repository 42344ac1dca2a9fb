package dev.sockstate.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LendingPoolTest {

    private final AtomicInteger made = new AtomicInteger();

    private final LendingPool<Object> pool = new LendingPool<>(() -> this.made.incrementAndGet(), 3);

    @Test
    void anObjectGivenBackIsLentAgainInsteadOfANewOne() {
        Object first = this.pool.borrow();
        this.pool.giveBack(first);
        assertThat(this.pool.borrow()).isSameAs(first);
        assertThat(this.made).hasValue(1);
    }

    @Test
    void noMoreThanTheLimitAreMadeAndNoneIsLentTwiceAtOnce() {
        List<Object> lent = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            lent.add(this.pool.borrow());
        }
        assertThat(lent).doesNotHaveDuplicates().doesNotContainNull();
        assertThat(this.pool.borrow()).as("a borrow while all are lent").isNull();
        this.pool.giveBack(lent.get(1));
        assertThat(this.pool.borrow()).isSameAs(lent.get(1));
        assertThat(this.made).hasValue(3);
    }

    @Test
    void threadsBorrowingAtOnceNeverShareAnObject() throws Exception {
        LendingPool<int[]> counters = new LendingPool<>(() -> new int[1], 4);
        AtomicInteger shared = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            Thread thread = new Thread(() -> {
                awaitQuietly(start);
                for (int i = 0; i < 100_000; i++) {
                    int[] counter = counters.borrow();
                    if (counter == null) {
                        continue;
                    }
                    // Lent to one thread at a time: nobody else moves it between these two steps.
                    int seen = ++counter[0];
                    Thread.onSpinWait();
                    if (counter[0] != seen) {
                        shared.incrementAndGet();
                    }
                    counters.giveBack(counter);
                }
            });
            thread.start();
            threads.add(thread);
        }
        start.countDown();
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertThat(shared).as("objects seen changed by another thread while lent").hasValue(0);
    }

    @Test
    void anObjectThatCouldNotBeMadeLeavesItsPlaceForALaterBorrow() {
        AtomicInteger attempts = new AtomicInteger();
        LendingPool<Object> failingOnce = new LendingPool<>(() -> {
            if (attempts.incrementAndGet() == 1) {
                throw new OutOfMemoryError("Cannot reserve direct buffer memory");
            }
            return new Object();
        }, 1);
        assertThatExceptionOfType(OutOfMemoryError.class).isThrownBy(failingOnce::borrow);
        assertThat(failingOnce.borrow()).as("made on the second try").isNotNull();
    }

    @Test
    void aPoolLendsAtLeastOneObject() {
        assertThatIllegalArgumentException().isThrownBy(() -> new LendingPool<>(Object::new, 0)).withMessageContaining("at least one");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
