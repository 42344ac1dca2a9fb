package dev.sockstate.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The bill of materials ({@code sockstate-bom}) manages every module an application may depend on,
 * each at the reactor's version: a module added to the build and left out of it fails here.
 */
class BillOfMaterialsTest {

    /** The reactor's modules that are not published for applications. */
    private static final List<String> NOT_FOR_APPLICATIONS = List.of("sockstate-bom", "sample-app", "benchmarks");

    @Test
    void managesEveryPublishedModuleAtTheReactorsVersion() throws IOException {
        String parent = Files.readString(Path.of("..", "pom.xml"));
        String bom = Files.readString(Path.of("..", "sockstate-bom", "pom.xml"));
        String version = first(Pattern.compile("<artifactId>sockstate-parent</artifactId>\\s*<version>([^<]+)</version>"), parent);
        assertThat(first(Pattern.compile("<artifactId>sockstate-bom</artifactId>\\s*<version>([^<]+)</version>"), bom))
                .as("the bill's own version").isEqualTo(version);
        List<String> published = all(Pattern.compile("<module>([^<]+)</module>"), parent).stream()
                .filter((module) -> !NOT_FOR_APPLICATIONS.contains(module)).toList();
        List<String> managed = all(Pattern.compile("<artifactId>(sockstate-[^<]+)</artifactId>\\s*<version>" + Pattern.quote(version)
                + "</version>"), bom.substring(bom.indexOf("<dependencyManagement>")));
        assertThat(managed).containsExactlyInAnyOrderElementsOf(published);
    }

    private static String first(Pattern pattern, String text) {
        Matcher matcher = pattern.matcher(text);
        assertThat(matcher.find()).as(pattern.pattern()).isTrue();
        return matcher.group(1);
    }

    private static List<String> all(Pattern pattern, String text) {
        return pattern.matcher(text).results().map((result) -> result.group(1)).toList();
    }
}
