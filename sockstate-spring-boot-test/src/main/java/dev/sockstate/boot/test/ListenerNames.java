package dev.sockstate.boot.test;

import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

/** The listener names an environment holds under a prefix, from every kind of property source. */
final class ListenerNames {

    private ListenerNames() {
    }

    /**
     * @param environment where to look
     * @param prefix such as {@code sockstate.listeners}
     * @return the names of the entries right under the prefix, as written
     */
    static Set<String> under(Environment environment, String prefix) {
        Set<String> names = new TreeSet<>();
        entries(environment, prefix, (name, element) -> names.add(element));
        return names;
    }

    /**
     * @param environment where to look
     * @param prefix such as {@code sockstate.listeners}
     * @return each entry right under the prefix as the property name of its key is written:
     * {@code .echo}, or {@code [a.b]} for a name written in brackets (so that a property set with
     * it is one the configuration's own binds together with the entry's other values)
     */
    static Set<String> keysUnder(Environment environment, String prefix) {
        Set<String> keys = new TreeSet<>();
        entries(environment, prefix, (name, element) -> keys.add(name.isLastElementIndexed() ? "[" + element + "]" : "." + element));
        return keys;
    }

    private static void entries(Environment environment, String prefix, BiConsumer<ConfigurationPropertyName, String> entry) {
        ConfigurationPropertyName parent = ConfigurationPropertyName.of(prefix);
        int index = parent.getNumberOfElements();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                iterable.stream().filter(parent::isAncestorOf).map((name) -> name.chop(index + 1))
                        .forEach((name) -> entry.accept(name, name.getElement(index, Form.ORIGINAL)));
            }
        }
    }
}
