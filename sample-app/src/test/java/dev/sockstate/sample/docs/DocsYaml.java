package dev.sockstate.sample.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;

/** Loads a YAML file of the reference documentation's examples ({@code src/test/resources/docs}) into a test's context. */
final class DocsYaml {

    private DocsYaml() {
    }

    /**
     * @param location the file on the class path, such as {@code docs/framing.yml}
     * @return what adds each of its documents to the context's environment, below the test's own properties
     */
    static ApplicationContextInitializer<ConfigurableApplicationContext> load(String location) {
        return (context) -> {
            try {
                for (PropertySource<?> source : new YamlPropertySourceLoader().load(location, new ClassPathResource(location))) {
                    context.getEnvironment().getPropertySources().addLast(source);
                }
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        };
    }
}
