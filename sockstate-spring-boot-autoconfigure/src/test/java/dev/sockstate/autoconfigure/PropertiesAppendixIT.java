package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import org.junit.jupiter.api.Test;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;

/**
 * The reference's properties appendix ({@code docs/appendix-properties.md}) is the one the built
 * jar's configuration metadata and the properties' javadoc make now: a key added, renamed or
 * described anew changes the page, or the build fails.
 */
class PropertiesAppendixIT {

    private static final Path PAGE = Path.of("..", "docs", "appendix-properties.md");

    @Test
    void theCommittedAppendixIsTheOneTheMetadataMakes() throws IOException {
        URL source = null;
        for (URL url : Collections.list(getClass().getClassLoader().getResources("META-INF/spring-configuration-metadata.json"))) {
            if (url.toString().contains("sockstate-spring-boot-autoconfigure")) {
                source = url;
            }
        }
        assertThat(source).as("metadata of sockstate-spring-boot-autoconfigure on the class path").isNotNull();
        String made;
        try (InputStream in = source.openStream()) {
            made = new PropertiesAppendix(ConfigurationMetadataRepositoryJsonBuilder.create(in).build().getAllProperties(),
                    Path.of("src", "main", "java")).page();
        }
        if (Boolean.getBoolean("docs.write")) {
            Files.writeString(PAGE, made);
        }
        assertThat(Files.exists(PAGE) ? Files.readString(PAGE) : "")
                .as("%s as the metadata makes it (-Ddocs.write=true writes it)", PAGE).isEqualTo(made);
    }
}
