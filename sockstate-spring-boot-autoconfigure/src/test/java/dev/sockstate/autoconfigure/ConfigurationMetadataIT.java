package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.ParameterizedType;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepository;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.configurationmetadata.ValueHint;
import org.springframework.boot.configurationmetadata.ValueProvider;

/**
 * The configuration metadata in the built jar, read as an IDE reads it (Spring Boot's own metadata
 * reader): every key the reference documentation's property appendix ({@code docs/appendix-properties.md})
 * documents completes, either as a property of its own or, under
 * {@code sockstate.listeners.<name>}, {@code sockstate.clients.<name>} and {@code sockstate.groups.<group>}, through the map's value type
 * (which IntelliJ IDEA and Spring Tools resolve); every key the code binds is documented; the
 * top-level keys with a fixed set of choices offer them as hints, the per-listener ones are
 * enumerations (a hint cannot name a key under a map, so {@code sockstate.handler-executor}, the
 * listeners' default, carries the executor's hints).
 */
class ConfigurationMetadataIT {

    private static final Pattern MAP_TYPE = Pattern.compile("java\\.util\\.Map<java\\.lang\\.String,(.+)>");

    private static URL source;

    private static Map<String, ConfigurationMetadataProperty> properties;

    private static Set<String> documented;

    @BeforeAll
    static void readTheJarAndTheReadme() throws IOException {
        for (URL url : Collections.list(ConfigurationMetadataIT.class.getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            if (url.toString().contains("sockstate-spring-boot-autoconfigure")) {
                source = url;
            }
        }
        assertThat(source).as("metadata of sockstate-spring-boot-autoconfigure on the class path").isNotNull();
        try (InputStream in = source.openStream()) {
            ConfigurationMetadataRepository repository = ConfigurationMetadataRepositoryJsonBuilder.create(in).build();
            properties = repository.getAllProperties();
        }
        documented = appendixKeys(Files.readString(Path.of("..", "docs", "appendix-properties.md")));
    }

    @Test
    void isReadFromTheBuiltJar() {
        assertThat(source.getProtocol()).isEqualTo("jar");
    }

    @Test
    void everyDocumentedKeyCompletesInAnIde() {
        for (String key : documented) {
            assertThat(resolve(key)).as("type of the documented key %s as an IDE resolves it from the metadata", key)
                    .isNotNull();
        }
    }

    @Test
    void everyBoundKeyIsDocumented() {
        Set<String> bound = new TreeSet<>();
        properties.keySet().stream().filter((name) -> name.startsWith("sockstate.")).forEach((name) -> {
            Class<?> map = mapValueType(name);
            if (map == null) {
                bound.add(name);
            }
            else {
                String placeholder = name.equals("sockstate.groups") ? ".<group>" : ".<name>";
                leaves(map, name + placeholder, bound);
            }
        });
        assertThat(documented).as("keys in the property appendix").containsAll(bound);
    }

    @Test
    void everyPropertyOfItsOwnHasADescription() {
        properties.values().stream().filter((property) -> property.getId().startsWith("sockstate."))
                .forEach((property) -> assertThat(property.getDescription()).as(property.getId()).isNotBlank());
    }

    @Test
    void everyKeyWithAFixedSetOfValuesOffersThem() {
        for (String key : documented) {
            Class<?> type = resolve(key);
            String leaf = key.substring(key.lastIndexOf('.') + 1);
            if (type == String.class && Set.of("sockstate.backend", "sockstate.handler-executor").contains(key)) {
                assertThat(properties.get(key).getHints().getValueHints()).as("value hints of %s", key)
                        .extracting(ValueHint::getValue).isNotEmpty();
            }
            if (Set.of("protocol", "trigger", "events", "type", "byte-order").contains(leaf)) {
                assertThat(type.isEnum()).as("%s is an enumeration, so IDEs offer its constants", key).isTrue();
            }
        }
    }

    @Test
    void theHandlerExecutorIsABeanReference() {
        List<ValueProvider> providers = properties.get("sockstate.handler-executor").getHints().getValueProviders();
        assertThat(providers).singleElement().satisfies((provider) -> {
            assertThat(provider.getName()).isEqualTo("spring-bean-reference");
            assertThat(provider.getParameters()).containsEntry("target", "org.springframework.core.task.TaskExecutor");
        });
    }

    /** @return the type an IDE finds for the key (for a collection, its element type), or {@code null} */
    private static Class<?> resolve(String key) {
        ConfigurationMetadataProperty own = properties.get(key);
        if (own != null) {
            return load(own.getType());
        }
        for (String map : List.of("sockstate.listeners.<name>.", "sockstate.clients.<name>.", "sockstate.groups.<group>.")) {
            if (key.startsWith(map)) {
                Class<?> type = mapValueType(map.substring(0, map.indexOf(".<")));
                for (String segment : key.substring(map.length()).split("\\.")) {
                    PropertyDescriptor descriptor = (type != null) ? BeanUtils.getPropertyDescriptor(type, camel(segment.replace("[n]", ""))) : null;
                    type = (descriptor != null) ? elementType(descriptor) : null;
                }
                return type;
            }
        }
        return null;
    }

    private static Class<?> mapValueType(String name) {
        ConfigurationMetadataProperty property = properties.get(name);
        Matcher matcher = (property != null) ? MAP_TYPE.matcher(property.getType()) : null;
        return (matcher != null && matcher.matches()) ? load(matcher.group(1)) : null;
    }

    /** Adds the keys of every value a binder sets on {@code type}, below {@code prefix}. */
    private static void leaves(Class<?> type, String prefix, Set<String> keys) {
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
            if (descriptor.getReadMethod() == null || descriptor.getName().equals("class")) {
                continue;
            }
            String key = prefix + "." + kebab(descriptor.getName());
            if (descriptor.getWriteMethod() != null) {
                keys.add(key);
            }
            else if (descriptor.getPropertyType().getName().startsWith("dev.sockstate.")) {
                leaves(descriptor.getPropertyType(), key, keys);
            }
        }
    }

    private static Class<?> elementType(PropertyDescriptor descriptor) {
        if (Collection.class.isAssignableFrom(descriptor.getPropertyType())
                && descriptor.getReadMethod().getGenericReturnType() instanceof ParameterizedType collection) {
            return (Class<?>) collection.getActualTypeArguments()[0];
        }
        return descriptor.getPropertyType();
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name.replaceAll("<.*", ""));
        }
        catch (ClassNotFoundException ex) {
            return null;
        }
    }

    private static String camel(String kebab) {
        StringBuilder camel = new StringBuilder();
        for (String part : kebab.split("-")) {
            camel.append(camel.isEmpty() ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
        }
        return camel.toString();
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
    }

    /**
     * The property appendix's tables: every row whose first cell begins with a key in backticks, one
     * key per row ({@code sockstate.listeners.<name>.port}), several where a row lists more as
     * {@code `a.b.c`, `.d`} (siblings of the first), and {@code sockstate.groups.<group>.*} standing
     * for the worker pool's keys.
     */
    private static Set<String> appendixKeys(String appendix) {
        Set<String> keys = new TreeSet<>();
        List<String> workers = new ArrayList<>();
        for (String line : appendix.lines().toList()) {
            if (!line.startsWith("| `sockstate.")) {
                continue;
            }
            String cell = line.substring(1, line.indexOf('|', 1));
            Matcher names = Pattern.compile("`([^`]+)`").matcher(cell);
            String first = null;
            while (names.find()) {
                String name = names.group(1);
                if (first == null) {
                    first = name;
                    keys.add(name);
                }
                else {
                    keys.add(first.substring(0, first.lastIndexOf('.')) + name);
                }
            }
            if (first.startsWith("sockstate.workers.")) {
                workers.add(first.substring("sockstate.workers.".length()));
            }
        }
        if (keys.remove("sockstate.groups.<group>.*")) {
            workers.forEach((key) -> keys.add("sockstate.groups.<group>." + key));
        }
        return keys;
    }

}
