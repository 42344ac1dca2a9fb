package dev.sockstate.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run's results directory: named by the day in UTC and the commit, a new one for a second run of the
 * same day and commit, and holding the report headed by what ran, the samples, the charts and a page
 * that shows the charts above the tables.
 */
class ResultsDirectoryTest {

    private static final LocalDate DAY = LocalDate.of(2025, 3, 7);

    @TempDir
    Path folder;

    @Test
    void theNameIsTheDayAndTheCommit() {
        assertThat(ResultsDirectory.name(DAY, "1a2b3c4")).isEqualTo("2025-03-07-1a2b3c4");
        assertThat(ResultsDirectory.name(LocalDate.of(2025, 12, 31), ResultsDirectory.UNKNOWN)).isEqualTo("2025-12-31-unknown");
    }

    @Test
    void theDayIsTheRunsDayInUtc() {
        assertThat(ResultsDirectory.day(OffsetDateTime.parse("2025-03-08T01:30:00+02:00").toInstant())).isEqualTo(DAY);
        assertThat(ResultsDirectory.day(OffsetDateTime.parse("2025-03-07T23:30:00-05:00").toInstant()))
                .isEqualTo(LocalDate.of(2025, 3, 8));
    }

    @Test
    void theCommitComesFromTheEnvironmentThenGitElseIsUnknown() {
        assertThat(ResultsDirectory.commit("9f8e7d6", () -> {
            throw new AssertionError("git is not asked when COMMIT is set");
        })).isEqualTo("9f8e7d6");
        assertThat(ResultsDirectory.commit(null, () -> "1a2b3c4")).isEqualTo("1a2b3c4");
        assertThat(ResultsDirectory.commit(" ", () -> "1a2b3c4")).as("blank is unset").isEqualTo("1a2b3c4");
        assertThat(ResultsDirectory.commit(null, () -> null)).isEqualTo("unknown");
        assertThat(ResultsDirectory.commit("feature/new idea", () -> null)).as("fit for a folder's name").isEqualTo("feature-new-idea");
        assertThat(ResultsDirectory.commit("..", () -> null)).isEqualTo("unknown");
    }

    @Test
    void aSecondRunOfTheSameDayAndCommitGetsADirectoryOfItsOwn() throws Exception {
        Path parent = this.folder.resolve("results");
        assertThat(ResultsDirectory.create(parent, "2025-03-07-1a2b3c4")).isEqualTo(parent.resolve("2025-03-07-1a2b3c4")).isDirectory();
        assertThat(ResultsDirectory.create(parent, "2025-03-07-1a2b3c4")).isEqualTo(parent.resolve("2025-03-07-1a2b3c4-2")).isDirectory();
    }

    @Test
    void theDirectoryHoldsTheHeadedReportTheSamplesTheChartsAndAPageThatShowsThem() throws Exception {
        Path csv = this.folder.resolve("samples.csv");
        Samples samples = FixedSamples.of(csv);
        String report = new Report(samples, FixedSamples.SERVERS, FixedSamples.SCENARIOS).markdown();
        RunDescription run = RunDescription.here(List.of("--full", "--results", "benchmarks/results"),
                Map.of("epoll: Linux 6.1 with epoll, FFM binding (Java 25)", List.of("sockstate")), DAY, "1a2b3c4");
        List<Charts.Chart> charts = Charts.of(samples, FixedSamples.SERVERS, FixedSamples.SCENARIOS);

        Path written = ResultsDirectory.write(this.folder.resolve("results"), "End-to-end comparison", run, report, csv, charts);

        assertThat(written).isEqualTo(this.folder.resolve("results").resolve("2025-03-07-1a2b3c4"));
        assertThat(written.resolve("samples.csv")).hasSameTextualContentAs(csv);
        String headed = Files.readString(written.resolve("report.md"));
        assertThat(headed).startsWith("# End-to-end comparison: 2025-03-07, commit 1a2b3c4\n\n- Options: `--full`").endsWith(report);
        for (Charts.Chart chart : charts) {
            assertThat(Files.readString(written.resolve(chart.file()))).isEqualTo(chart.chart().svg());
        }
        String page = Files.readString(written.resolve("README.md"));
        assertThat(page).startsWith("# End-to-end comparison: 2025-03-07, commit 1a2b3c4").endsWith(report)
                .contains("![Closed-loop ping-pong: messages/s](messages.svg)", "(cpu-per-message.svg)", "(connections.svg)",
                        "(idle-memory.svg)", "[report.md](report.md)", "[samples.csv](samples.csv)");
        assertThat(page.indexOf("(idle-memory.svg)")).as("the charts above the tables").isLessThan(page.indexOf("| load | server |"));
    }
}
