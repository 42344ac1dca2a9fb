package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LinearCostTest {

    private static long sink;

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
