package dev.sockstate.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The project's documents as a reader meets them: every code snippet is a region of a source that the
 * build compiles and runs, every relative link leads somewhere, the README and the benchmarks' page stay
 * short, and nothing a user reads tells the history of the work, names a test class or a machine path.
 */
class DocumentationTests {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /** Languages whose snippets must come from a source the build compiles or loads. */
    private static final Set<String> CHECKED_LANGUAGES = Set.of("java", "yaml", "yml", "xml", "properties");

    private static final Pattern FENCE = Pattern.compile("^(\\s*)```(\\w*)\\s*$");

    private static final Pattern SNIPPET = Pattern.compile("^<!-- snippet: ([^#\\s]+)#([\\w.-]+) -->$");

    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");

    @Test
    void everyCheckedSnippetIsARegionOfASourceTheBuildCompiles() throws IOException {
        List<String> problems = new ArrayList<>();
        int snippets = 0;
        for (Path document : documents()) {
            List<String> lines = Files.readAllLines(document);
            for (int i = 0; i < lines.size(); i++) {
                Matcher fence = FENCE.matcher(lines.get(i));
                if (!fence.matches()) {
                    continue;
                }
                int end = closingFence(lines, i);
                String language = fence.group(2).toLowerCase(Locale.ROOT);
                if (CHECKED_LANGUAGES.contains(language)) {
                    snippets++;
                    Matcher marker = (i > 0) ? SNIPPET.matcher(lines.get(i - 1).strip()) : null;
                    String where = ROOT.relativize(document) + ":" + (i + 1);
                    if (marker == null || !marker.matches()) {
                        problems.add(where + ": a " + language + " block without a <!-- snippet: path#tag --> line before it");
                    }
                    else {
                        String block = String.join("\n", dedent(lines.subList(i + 1, end)));
                        String region = region(Path.of(marker.group(1)), marker.group(2));
                        if (region == null) {
                            problems.add(where + ": no region tagged " + marker.group(2) + " in " + marker.group(1));
                        }
                        else if (!region.equals(block)) {
                            problems.add(where + ": the block differs from " + marker.group(1) + "#" + marker.group(2)
                                    + "\n--- the source's region:\n" + region + "\n--- the block:\n" + block);
                        }
                    }
                }
                i = end;
            }
        }
        assertThat(problems).as("snippets that are not their sources' regions").isEmpty();
        assertThat(snippets).as("snippets checked").isPositive();
    }

    @Test
    void everyRelativeLinkLeadsToAFileAndItsHeading() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path document : documents()) {
            String text = withoutCode(Files.readString(document));
            Matcher link = LINK.matcher(text);
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-z]+:.*") || target.startsWith("mailto:")) {
                    continue;
                }
                int hash = target.indexOf('#');
                String file = (hash < 0) ? target : target.substring(0, hash);
                Path resolved = file.isEmpty() ? document : document.getParent().resolve(file).normalize();
                if (!Files.exists(resolved)) {
                    problems.add(ROOT.relativize(document) + ": " + target + " (no such file)");
                }
                else if (hash >= 0 && resolved.toString().endsWith(".md")
                        && !anchors(Files.readString(resolved)).contains(target.substring(hash + 1))) {
                    problems.add(ROOT.relativize(document) + ": " + target + " (no such heading)");
                }
            }
        }
        assertThat(problems).as("links that lead nowhere").isEmpty();
    }

    @Test
    void theReadmeAndTheBenchmarksPageStayShort() throws IOException {
        assertThat(Files.size(ROOT.resolve("README.md"))).as("bytes of README.md").isLessThanOrEqualTo(12_000);
        assertThat(Files.size(ROOT.resolve("benchmarks/README.md"))).as("bytes of benchmarks/README.md").isLessThanOrEqualTo(20_000);
    }

    /** A path to a results directory of the benchmarks: {@code results/[<folder>/]<yyyy-MM-dd>-<commit>[-n]}. */
    private static final Pattern RUN_DIRECTORY = Pattern.compile("\\bresults/([\\w-]+/)?\\d{4}-\\d{2}-\\d{2}-[0-9a-f]{7,40}(-\\d+)?");

    @Test
    void noDocumentTellsTheHistoryOfTheWorkOrAMachinePath() throws IOException {
        Pattern history = Pattern.compile("(?i)\\bissues? #?\\d+|\\bsecond reader|\\brounds? of (the )?work|/tmp/|/work/|/home/|/usr/lib/jvm"
                + "|(?-i)\\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\\b");
        List<String> problems = new ArrayList<>();
        for (Path document : documents()) {
            List<String> lines = Files.readAllLines(document);
            for (int i = 0; i < lines.size(); i++) {
                // A results directory is named by its run's date and commit: a link to it names the run, not the history.
                Matcher found = history.matcher(RUN_DIRECTORY.matcher(lines.get(i)).replaceAll("results/<run>"));
                if (found.find()) {
                    problems.add(ROOT.relativize(document) + ":" + (i + 1) + ": " + found.group() + " in: " + lines.get(i).strip());
                }
            }
        }
        assertThat(problems).as("history (issue numbers, commits) or machine paths in the documents").isEmpty();
    }

    @Test
    void nothingAUserReadsNamesATestClass() throws IOException {
        Pattern testClass = Pattern.compile("\\b[A-Z][a-z]\\w*(Test|Tests|IT)\\b");
        List<String> problems = new ArrayList<>();
        for (Path document : documents()) {
            if (document.getFileName().toString().equals("CONTRIBUTING.md") || document.startsWith(ROOT.resolve("benchmarks"))
                    || document.getFileName().toString().equals("architecture.md")) {
                continue;
            }
            List<String> lines = withoutCode(Files.readString(document)).lines().toList();
            for (int i = 0; i < lines.size(); i++) {
                if (SNIPPET.matcher(lines.get(i).strip()).matches()) {
                    // (Where a snippet comes from, which the page does not show.)
                    continue;
                }
                Matcher found = testClass.matcher(lines.get(i));
                if (found.find()) {
                    problems.add(ROOT.relativize(document) + ": " + found.group() + " in: " + lines.get(i).strip());
                }
            }
        }
        assertThat(problems).as("test classes named where users read").isEmpty();
    }

    /** @return the Markdown documents of the project: the top level's, docs/ and benchmarks/ */
    private static List<Path> documents() throws IOException {
        List<Path> documents = new ArrayList<>();
        try (Stream<Path> top = Files.list(ROOT)) {
            top.filter((path) -> path.toString().endsWith(".md")).forEach(documents::add);
        }
        for (String folder : List.of("docs", "benchmarks")) {
            try (Stream<Path> pages = Files.list(ROOT.resolve(folder))) {
                pages.filter((path) -> path.toString().endsWith(".md")).forEach(documents::add);
            }
        }
        documents.sort(null);
        return documents;
    }

    private static int closingFence(List<String> lines, int opening) {
        for (int i = opening + 1; i < lines.size(); i++) {
            if (lines.get(i).strip().equals("```")) {
                return i;
            }
        }
        throw new AssertionError("a code block that never closes at line " + (opening + 1));
    }

    /**
     * @return the lines between the markers {@code tag::name[]} and {@code end::name[]} in the file,
     * without their common indentation, or {@code null} when it has no such region
     */
    private static String region(Path file, String tag) {
        Path source = ROOT.resolve(file);
        if (!Files.exists(source)) {
            return null;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(source);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        int start = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("tag::" + tag + "[]")) {
                start = i;
            }
            else if (start >= 0 && lines.get(i).contains("end::" + tag + "[]")) {
                return String.join("\n", dedent(lines.subList(start + 1, i)));
            }
        }
        return null;
    }

    private static List<String> dedent(List<String> lines) {
        int indent = lines.stream().filter((line) -> !line.isBlank()).mapToInt((line) -> line.length() - line.stripLeading().length())
                .min().orElse(0);
        return lines.stream().map((line) -> line.isBlank() ? "" : line.substring(indent)).map(String::stripTrailing)
                .collect(Collectors.toList());
    }

    /** @return the text without its fenced blocks and inline code, where a link or a name is not the prose's */
    private static String withoutCode(String text) {
        StringBuilder prose = new StringBuilder();
        boolean inBlock = false;
        for (String line : text.lines().toList()) {
            if (line.strip().startsWith("```")) {
                inBlock = !inBlock;
                prose.append('\n');
                continue;
            }
            prose.append(inBlock ? "" : line.replaceAll("`[^`]*`", "``")).append('\n');
        }
        return prose.toString();
    }

    /** @return the anchors GitHub gives the document's headings */
    private static Set<String> anchors(String markdown) {
        Set<String> anchors = new HashSet<>();
        Set<String> seen = new HashSet<>();
        for (String line : withoutCodeBlocks(markdown)) {
            if (line.startsWith("#")) {
                String slug = line.replaceFirst("^#+\\s*", "").strip().toLowerCase(Locale.ROOT)
                        .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
                String anchor = slug;
                for (int n = 1; !seen.add(anchor); n++) {
                    anchor = slug + "-" + n;
                }
                anchors.add(anchor);
            }
        }
        return anchors;
    }

    private static List<String> withoutCodeBlocks(String markdown) {
        List<String> lines = new ArrayList<>();
        boolean inBlock = false;
        for (String line : markdown.lines().toList()) {
            if (line.strip().startsWith("```")) {
                inBlock = !inBlock;
            }
            else if (!inBlock) {
                lines.add(line);
            }
        }
        return lines;
    }
}
