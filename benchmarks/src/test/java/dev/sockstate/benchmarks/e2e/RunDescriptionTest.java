package dev.sockstate.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The head of a results directory's report: what ran, on which JDK, system and processor, when and
 * at which commit, and never a path of the machine it ran on.
 */
class RunDescriptionTest {

    /** A path from the root or the home folder, where a value or option begins or after a separator. */
    private static final Pattern ABSOLUTE_PATH = Pattern.compile("(?<![\\w.~-])~?/\\w");

    private static final LocalDate DAY = LocalDate.of(2025, 3, 7);

    @Test
    void theHeaderSaysWhatRanOnThisMachine() {
        String header = here(List.of("--full", "--servers", "netty-epoll,sockstate", "--loads", "64x64x1")).markdown();
        assertThat(header).contains("`--full --servers netty-epoll,sockstate --loads 64x64x1`")
                .contains(System.getProperty("java.version"), System.getProperty("java.vendor"))
                .contains("epoll: Linux 6.1 with epoll, FFM binding (Java 25) (sockstate, sockstate-oneshot)")
                .contains(System.getProperty("os.name") + " " + System.getProperty("os.version"))
                .contains(Runtime.getRuntime().availableProcessors() + " available processors")
                .contains("2025-03-07 (UTC)", "commit: unknown");
    }

    @Test
    void theHeaderNamesNoPathOfTheMachine() {
        String home = System.getProperty("user.home");
        RunDescription run = here(List.of("--quick", "--out", "/tmp/e2e/run", "--results", home + "/results", "--servers", "sockstate"));
        String header = run.markdown() + run.title("End-to-end comparison");
        assertThat(header).contains("`--quick --servers sockstate`").doesNotContain("--out", "--results", "/tmp", home,
                System.getProperty("java.home"), System.getProperty("user.dir"));
        assertThat(ABSOLUTE_PATH.matcher(header).find()).as("an absolute path in:\n" + header).isFalse();
    }

    @Test
    void aPathInTheServersJvmOptionsIsLeftOut() {
        RunDescription run = new RunDescription(List.of("--out", "relative/folder", "--framing", "line"), "25 (Vendor)", Map.of(),
                "Linux 6.1 (amd64)", "Some CPU", 2, "-agentpath:/opt/profiler/lib/libasyncProfiler.so=start,event=cpu,file=/tmp/p.html"
                        + " -Xlog:gc:file=~/gc.log",
                "0", DAY, "1a2b3c4");
        String header = run.markdown();
        assertThat(header).contains("`--framing line`", "-agentpath:…=start,event=cpu,file=…", "-Xlog:gc:file=…")
                .contains("not reported (no sockstate server ran)").contains("- Every server held to processors `0` (`SERVER_CPUS`)")
                .doesNotContain("relative/folder", "/opt", "/tmp", "~/");
        assertThat(ABSOLUTE_PATH.matcher(header).find()).as("an absolute path in:\n" + header).isFalse();
    }

    @Test
    void noOptionsAreTheQuickDefaults() {
        assertThat(here(List.of()).markdown()).contains("- Options: none (the defaults)");
    }

    @Test
    void theCpuModelIsTheFirstModelNameOfCpuInfo(@TempDir Path folder) throws Exception {
        Path cpuInfo = folder.resolve("cpuinfo");
        Files.writeString(cpuInfo, "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n\n"
                + "processor\t: 1\nmodel name\t: Another CPU\n");
        assertThat(RunDescription.cpuModel(cpuInfo)).isEqualTo("Intel(R) Xeon(R) CPU @ 2.20GHz");
        assertThat(RunDescription.cpuModel(folder.resolve("missing"))).isEqualTo("not known");
        Files.writeString(cpuInfo, "processor\t: 0\nBogoMIPS\t: 50.00\n");
        assertThat(RunDescription.cpuModel(cpuInfo)).isEqualTo("not known");
    }

    private static RunDescription here(List<String> options) {
        return RunDescription.here(options, Map.of("epoll: Linux 6.1 with epoll, FFM binding (Java 25)",
                List.of("sockstate", "sockstate-oneshot")), DAY, ResultsDirectory.UNKNOWN);
    }
}
