package dev.sockstate.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The server kinds that measure a cost against another: the same server but for what they measure. */
class ServerKindTest {

    @Test
    void theMeteredOneShotServerIsTheOneShotServerWithARegistry() {
        StarterEchoServer plain = (StarterEchoServer) ServerKind.SOCKSTATE_ONESHOT.create();
        StarterEchoServer metered = (StarterEchoServer) ServerKind.SOCKSTATE_ONESHOT_METRICS.create();
        assertThat(metered.options).as("the metered server's layout").isEqualTo(plain.options);
        assertThat(plain.metrics).isFalse();
        assertThat(metered.metrics).isTrue();
    }

    @Test
    void theHistogramServerIsTheMeteredOneWithAHandlerHistogram() {
        StarterEchoServer metered = (StarterEchoServer) ServerKind.SOCKSTATE_ONESHOT_METRICS.create();
        StarterEchoServer histogram = (StarterEchoServer) ServerKind.SOCKSTATE_ONESHOT_HISTOGRAM.create();
        List<String> expected = new java.util.ArrayList<>(metered.options);
        expected.add("management.metrics.distribution.percentiles-histogram.sockstate.handler=true");
        assertThat(histogram.options).isEqualTo(expected);
        assertThat(histogram.metrics).isTrue();
    }

    @Test
    void theYieldingServerIsTheDefaultServerWithItsWorkersYieldOn() {
        StarterEchoServer plain = (StarterEchoServer) ServerKind.SOCKSTATE.create();
        StarterEchoServer yielding = (StarterEchoServer) ServerKind.SOCKSTATE_YIELD.create();
        List<String> expected = new java.util.ArrayList<>(plain.options);
        expected.add("sockstate.workers.yield-before-wait=true");
        assertThat(yielding.options).isEqualTo(expected);
        assertThat(ServerKind.parse("sockstate-yield")).isEqualTo(ServerKind.SOCKSTATE_YIELD);
    }
}
