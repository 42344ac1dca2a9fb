package dev.sockstate.benchmarks.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a run of the comparison was, for the head of its report in a results directory: the options it
 * was given, the JDK (the servers run on the same one) and the backend sockstate's servers said they ran
 * on, the system, the processor, the date and the commit. Nothing in it names a place on the machine:
 * the options that name folders ({@code --out}, {@code --results}) are left out, and any absolute path
 * left in a value (a profiler's agent in {@code SERVER_JVM_OPTS}) is replaced by {@value #PATH_SHOWN}.
 *
 * @param options the harness's command-line options
 * @param jdk the JDK's version and vendor
 * @param backends each backend description the sockstate servers gave, with the servers that gave it
 * @param system the operating system, its kernel version and architecture
 * @param cpu the processor's model name
 * @param processors the processors available to the JVM
 * @param serverJvmOptions what {@code SERVER_JVM_OPTS} added to every server JVM, or an empty string
 * @param serverCpus the processors {@code SERVER_CPUS} held every server to, or an empty string
 * @param date the day the run began, in UTC
 * @param commit the commit measured
 */
record RunDescription(List<String> options, String jdk, Map<String, List<String>> backends, String system, String cpu,
        int processors, String serverJvmOptions, String serverCpus, LocalDate date, String commit) {

    /** What an absolute path is shown as. */
    static final String PATH_SHOWN = "…";

    /** The options whose value is a folder on this machine. */
    private static final List<String> FOLDER_OPTIONS = List.of("--out", "--results");

    /** An absolute path (or one from the home folder), up to a separator of a list of options. */
    private static final Pattern ABSOLUTE_PATH = Pattern.compile("(?<![\\w.~-])~?/[^\\s,;=)\"'`]*");

    private static final Path CPU_INFO = Path.of("/proc/cpuinfo");

    RunDescription {
        options = List.copyOf(options);
        Map<String, List<String>> copy = new LinkedHashMap<>();
        backends.forEach((description, servers) -> copy.put(description, List.copyOf(servers)));
        backends = Collections.unmodifiableMap(copy);
    }

    /**
     * @param options the harness's command-line options
     * @param backends each backend description the sockstate servers gave, with the servers that gave it
     * @param date the day the run began, in UTC
     * @param commit the commit measured
     * @return the run on this machine and JDK
     */
    static RunDescription here(List<String> options, Map<String, List<String>> backends, LocalDate date, String commit) {
        String extra = System.getenv("SERVER_JVM_OPTS");
        String cpus = System.getenv("SERVER_CPUS");
        return new RunDescription(options, System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")",
                backends, System.getProperty("os.name") + " " + System.getProperty("os.version") + " ("
                        + System.getProperty("os.arch") + ")",
                cpuModel(CPU_INFO), Runtime.getRuntime().availableProcessors(), (extra != null) ? extra.trim() : "",
                (cpus != null) ? cpus.trim() : "", date, commit);
    }

    /**
     * @param cpuInfo {@code /proc/cpuinfo}
     * @return the first {@code model name} in it, or "not known" when it cannot be read or has none
     */
    static String cpuModel(Path cpuInfo) {
        try (Stream<String> lines = Files.lines(cpuInfo)) {
            return lines.filter((line) -> line.startsWith("model name") && line.contains(":"))
                    .map((line) -> line.substring(line.indexOf(':') + 1).trim()).filter((model) -> !model.isEmpty()).findFirst()
                    .orElse("not known");
        }
        catch (IOException | UncheckedIOException ex) {
            return "not known";
        }
    }

    /**
     * @param comparison what was compared, such as "End-to-end comparison"
     * @return the title of the run's pages
     */
    String title(String comparison) {
        return comparison + ": " + this.date + ", commit " + this.commit;
    }

    /** @return what ran, as a Markdown list */
    String markdown() {
        StringBuilder out = new StringBuilder();
        String shown = shownOptions();
        out.append("- Options: ").append(shown.isEmpty() ? "none (the defaults)" : "`" + shown + "`").append('\n');
        out.append("- JDK: ").append(withoutPaths(this.jdk)).append(", the harness's and every server JVM's\n");
        out.append("- sockstate's backend: ");
        if (this.backends.isEmpty()) {
            out.append("not reported (no sockstate server ran)");
        }
        else {
            out.append(this.backends.entrySet().stream().map((entry) -> withoutPaths(entry.getKey()) + " ("
                    + String.join(", ", entry.getValue()) + ")").collect(Collectors.joining("; ")));
        }
        out.append('\n');
        if (!this.serverJvmOptions.isBlank()) {
            out.append("- Added to every server JVM (`SERVER_JVM_OPTS`): `").append(withoutPaths(this.serverJvmOptions)).append("`\n");
        }
        if (!this.serverCpus.isBlank()) {
            out.append("- Every server held to processors `").append(this.serverCpus).append("` (`SERVER_CPUS`)\n");
        }
        out.append("- System: ").append(withoutPaths(this.system)).append("; CPU: ").append(withoutPaths(this.cpu)).append(", ")
                .append(this.processors).append(" available processors\n");
        out.append("- Date: ").append(this.date).append(" (UTC); commit: ").append(this.commit).append('\n');
        return out.toString();
    }

    /** @return the options without those that name a folder, any path left replaced */
    private String shownOptions() {
        List<String> shown = new ArrayList<>();
        for (int i = 0; i < this.options.size(); i++) {
            String option = this.options.get(i);
            if (FOLDER_OPTIONS.contains(option)) {
                i++;
                continue;
            }
            shown.add(withoutPaths(option));
        }
        return String.join(" ", shown);
    }

    /** @param text a value from the machine @return the value with each absolute path replaced by {@value #PATH_SHOWN} */
    static String withoutPaths(String text) {
        return ABSOLUTE_PATH.matcher(text).replaceAll(PATH_SHOWN);
    }
}
