package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LinearCostTest {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private static long sink;

    @BeforeEach
    void cpuTimeMeasured() {
        assumeTrue(THREADS.isCurrentThreadCpuTimeSupported(), "the JVM measures a thread's CPU time");
    }

    @Test
    void aRunWhoseCostGrowsWithTheSquareOfItsSizeFailsInEveryRound() {
        assertThatThrownBy(() -> LinearCost.assertLinear("a quadratic loop", 1024, LinearCostTest::quadratic))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("a quadratic loop")
                .hasMessageContaining("round 4");
    }

    @Test
    void aRunWhoseCostGrowsWithItsSizePasses() {
        assertThatNoException().isThrownBy(() -> LinearCost.assertLinear("a linear loop", 256 * 1024, LinearCostTest::linear));
    }

    @Test
    void aRunSlowAtTheLargerSizeOnlyForItsFirst200MillisecondsPassesInALaterRound() {
        long[] slowSpent = new long[1];
        assertThatNoException().isThrownBy(() -> LinearCost.assertLinear("a loop slow for a while", 256 * 1024, (size) -> {
            if (size > 256 * 1024 && slowSpent[0] < 200_000_000) {
                // As code not compiled yet runs: 40 times the work, for a while.
                long start = THREADS.getCurrentThreadCpuTime();
                for (int i = 0; i < 40; i++) {
                    linear(size);
                }
                slowSpent[0] += THREADS.getCurrentThreadCpuTime() - start;
                return;
            }
            linear(size);
        }));
        assertThat(slowSpent[0]).as("CPU time spent slow").isGreaterThanOrEqualTo(200_000_000);
    }

    private static void quadratic(int size) {
        long sum = 0;
        for (int i = 0; i < size; i++) {
            for (int j = 0; j < size; j++) {
                sum += (i ^ j) & 7;
            }
        }
        sink += sum;
    }

    private static void linear(int size) {
        long sum = 0;
        for (int i = 0; i < size; i++) {
            sum += (i * 31L) & 7;
        }
        sink += sum;
    }
}
