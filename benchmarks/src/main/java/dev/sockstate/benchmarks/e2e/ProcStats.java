package dev.sockstate.benchmarks.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What {@code /proc} tells about a process: CPU time spent and resident memory. */
final class ProcStats {

    /** Clock ticks per second of {@code /proc/<pid>/stat}'s times; the launcher passes {@code getconf CLK_TCK}. */
    static final long CLOCK_TICKS = Long.getLong("clock.ticks", 100);

    private ProcStats() {
    }

    /** @param pid a process @return its user plus system CPU time so far, in nanoseconds */
    static long cpuNanos(long pid) {
        String stat = read(Path.of("/proc", Long.toString(pid), "stat"));
        // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        return ticks * 1_000_000_000L / CLOCK_TICKS;
    }

    /** @param pid a process @return its system (kernel) CPU time so far, in nanoseconds */
    static long systemNanos(long pid) {
        String stat = read(Path.of("/proc", Long.toString(pid), "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        return Long.parseLong(fields[12]) * 1_000_000_000L / CLOCK_TICKS;
    }

    /** @param pid a process @return the voluntary plus involuntary context switches of all its threads so far */
    static long contextSwitches(long pid) {
        long total = 0;
        try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    for (String line : Files.readString(task.resolve("status")).split("\n")) {
                        if (line.contains("ctxt_switches:")) {
                            total += Long.parseLong(line.replaceAll("[^0-9]", ""));
                        }
                    }
                }
                catch (IOException ex) {
                    // the thread ended meanwhile
                }
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return total;
    }

    /** @param pid a process @return its resident set size in bytes */
    /** @return the machine's idle and total CPU time so far, in clock ticks, from {@code /proc/stat} */
    static long[] machineIdleAndTotalTicks() {
        String[] fields = read(Path.of("/proc/stat")).lines().findFirst().orElseThrow().trim().split("\\s+");
        long total = 0;
        for (int i = 1; i < fields.length; i++) {
            total += Long.parseLong(fields[i]);
        }
        return new long[] {Long.parseLong(fields[4]), total};
    }

    static long residentBytes(long pid) {
        for (String line : read(Path.of("/proc", Long.toString(pid), "status")).split("\n")) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IllegalStateException("No VmRSS in /proc/" + pid + "/status");
    }

    /** @return this process's soft limit of open files */
    static long openFileLimit() {
        for (String line : read(Path.of("/proc/self/limits")).split("\n")) {
            if (line.startsWith("Max open files")) {
                String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
            }
        }
        throw new IllegalStateException("No open-files limit in /proc/self/limits");
    }

    private static String read(Path path) {
        try {
            return Files.readString(path);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
