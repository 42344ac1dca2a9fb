package dev.sockstate.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report of a run, from made-up samples ({@link FixedSamples}). */
class ReportTest {

    @TempDir
    Path folder;

    @Test
    void aRunWithTheConnectionRateAndIdleRunsReportsThemAndTheirTargets() throws Exception {
        Samples samples = FixedSamples.of(this.folder.resolve("samples.csv"));

        String report = new Report(samples, FixedSamples.SERVERS, FixedSamples.SCENARIOS).markdown();

        assertThat(report).contains("### Connection rate and idle connections", "| connections/s ≥ 1.5× Netty's |",
                "| memory per idle connection ≤ ¼ of Netty's |").doesNotContain("NaN");
    }

    @Test
    void aRunWithoutTheConnectionRateAndIdleRunsHasNoEmptyTableOrTargetOfThem() throws Exception {
        Samples all = FixedSamples.of(this.folder.resolve("all.csv"));
        Samples echoOnly = new Samples(this.folder.resolve("samples.csv"));
        all.throughput.forEach(echoOnly::add);

        String report = new Report(echoOnly, FixedSamples.SERVERS, FixedSamples.SCENARIOS).markdown();

        assertThat(report).contains("### Closed-loop ping-pong", "| messages/s ≥ Netty and ≥ NIO")
                .doesNotContain("Connection rate", "connections/s ≥", "idle connection", "NaN", "| – |");
    }
}
