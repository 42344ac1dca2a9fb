package dev.sockstate.benchmarks.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A run's results in a directory meant to be committed ({@code --results dir}):
 * {@code dir/<yyyy-MM-dd>-<short commit>/}, named by the day the run began in UTC and the commit
 * measured (the environment's {@code COMMIT} when set, else {@code git rev-parse --short HEAD}, else
 * {@value #UNKNOWN}), holding the report headed by what ran ({@link RunDescription}), the raw samples,
 * the charts ({@link Charts}) and a {@code README.md} that shows the charts above the report's tables.
 * A second run of the same day and commit goes to the same name with {@code -2}, {@code -3}, ... after it.
 */
final class ResultsDirectory {

    /** The commit's name when neither the environment nor git tells it. */
    static final String UNKNOWN = "unknown";

    private ResultsDirectory() {
    }

    /** @param started when the run began @return its day in UTC */
    static LocalDate day(Instant started) {
        return LocalDate.ofInstant(started, ZoneOffset.UTC);
    }

    /**
     * @param date the day the run began, in UTC ({@link #day})
     * @param commit the commit measured, as {@link #commit} gives it
     * @return the directory's name: {@code <yyyy-MM-dd>-<commit>}
     */
    static String name(LocalDate date, String commit) {
        return DateTimeFormatter.ISO_LOCAL_DATE.format(date) + "-" + commit;
    }

    /**
     * @param fromEnvironment the environment's {@code COMMIT}, or {@code null}
     * @param fromGit asks git for the short commit, {@code null} when it cannot tell
     * @return the commit, with any character unfit for a directory's name replaced by {@code -}, or {@value #UNKNOWN}
     */
    static String commit(String fromEnvironment, Supplier<String> fromGit) {
        String commit = (fromEnvironment != null && !fromEnvironment.isBlank()) ? fromEnvironment : fromGit.get();
        if (commit == null) {
            return UNKNOWN;
        }
        String safe = commit.trim().replaceAll("[^A-Za-z0-9._-]", "-");
        return safe.matches("[.-]*") ? UNKNOWN : safe;
    }

    /** @return the commit {@code git rev-parse --short HEAD} names in the working directory, or {@code null} */
    static String git() {
        try {
            Process git = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            String output = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!git.waitFor(10, TimeUnit.SECONDS)) {
                git.destroyForcibly();
                return null;
            }
            return (git.exitValue() == 0 && !output.isEmpty()) ? output.lines().findFirst().orElse(null) : null;
        }
        catch (IOException ex) {
            return null;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * @param parent the folder of results directories, made if missing
     * @param name the directory's name
     * @return the new directory: {@code parent/name}, or {@code name-2}, {@code name-3}, ... when that is taken
     * @throws IOException when it cannot be made
     */
    static Path create(Path parent, String name) throws IOException {
        Files.createDirectories(parent);
        for (int n = 1;; n++) {
            try {
                return Files.createDirectory(parent.resolve((n == 1) ? name : name + "-" + n));
            }
            catch (FileAlreadyExistsException ex) {
                // taken by an earlier run of the same day and commit: the next number
            }
        }
    }

    /**
     * Writes a run's results.
     * @param parent the folder of results directories
     * @param comparison what was compared, the head of the title
     * @param run what ran
     * @param report the Markdown report, as the run's own folder has it
     * @param samples the raw samples ({@code samples.csv})
     * @param charts the run's charts
     * @return the directory written
     * @throws IOException when it cannot be written
     */
    static Path write(Path parent, String comparison, RunDescription run, String report, Path samples, List<Charts.Chart> charts) throws IOException {
        Path directory = create(parent, name(run.date(), run.commit()));
        String head = "# " + run.title(comparison) + "\n\n" + run.markdown() + "\n";
        Files.writeString(directory.resolve("report.md"), head + report, StandardCharsets.UTF_8);
        Files.copy(samples, directory.resolve("samples.csv"));
        Files.writeString(directory.resolve("README.md"), page(head, report, charts), StandardCharsets.UTF_8);
        for (Charts.Chart chart : charts) {
            Files.writeString(directory.resolve(chart.file()), chart.chart().svg(), StandardCharsets.UTF_8);
        }
        return directory;
    }

    /** @return the directory's page: what ran, the charts, then the report's tables */
    static String page(String head, String report, List<Charts.Chart> charts) {
        StringBuilder page = new StringBuilder(head);
        for (Charts.Chart chart : charts) {
            page.append("![").append(chart.title()).append("](").append(chart.file()).append(")\n\n");
        }
        page.append("The tables are also in [report.md](report.md), every round's figures in [samples.csv](samples.csv).\n\n");
        page.append(report);
        return page.toString();
    }
}
