package dev.sockstate.autoconfigure;

import java.beans.PropertyDescriptor;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Refuses {@code sockstate.*} keys that no property has (a typo, a key of another version), which
 * binding alone would let pass silently: each is reported with the nearest key the same place takes
 * ({@link UnknownPropertyException}, explained by a failure analysis). The keys of the configuration
 * files, the command line and the JVM's system properties are checked; environment variables are not,
 * as a host may set a {@code SOCKSTATE_*} variable for something else.
 */
final class UnknownProperties {

    /**
     * Where the backends keep the JVM system properties they read themselves, not bound here
     * ({@code sockstate.epoll.binding}, {@code sockstate.winsock.library}, ...).
     */
    private static final List<String> BACKENDS_OWN = List.of("sockstate.epoll.", "sockstate.winsock.");

    private UnknownProperties() {
    }

    /**
     * @param environment the application's environment
     * @throws UnknownPropertyException naming every key no property has, each with the nearest one, if any
     */
    static void refuse(Environment environment) {
        try {
            Binder.get(environment).bind(SettingSources.PREFIX.substring(0, SettingSources.PREFIX.length() - 1),
                    Bindable.of(SockstateProperties.class), new NoUnboundElementsBindHandler(BindHandler.DEFAULT,
                            (source) -> !(source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource)));
        }
        catch (BindException ex) {
            if (!(ex.getCause() instanceof UnboundConfigurationPropertiesException unbound)) {
                // A value that does not convert: reported as the binding of the properties reports it.
                return;
            }
            List<String> unknown = new ArrayList<>();
            for (ConfigurationProperty property : unbound.getUnboundProperties()) {
                String name = property.getName().toString();
                if (BACKENDS_OWN.stream().noneMatch(name::startsWith)) {
                    unknown.add(name);
                }
            }
            if (!unknown.isEmpty()) {
                List<@Nullable String> nearest = unknown.stream().map(UnknownProperties::nearest).toList();
                throw new UnknownPropertyException(unknown, nearest);
            }
        }
    }

    /** @return the key nearest the unknown one that the same place takes, {@code null} when none is near */
    static @Nullable String nearest(String unknown) {
        ConfigurationPropertyName name = ConfigurationPropertyName.of(unknown);
        Type type = SockstateProperties.class;
        StringBuilder parent = new StringBuilder("sockstate");
        for (int i = 1; i < name.getNumberOfElements() - 1; i++) {
            String element = name.getElement(i, ConfigurationPropertyName.Form.ORIGINAL);
            Type next = (name.isNumericIndex(i) || isMap(type)) ? elementType(type) : propertyType(type, element);
            if (next == null) {
                return null;
            }
            parent.append(name.isNumericIndex(i) ? "[" + element + "]" : "." + element);
            type = next;
        }
        String leaf = name.getLastElement(ConfigurationPropertyName.Form.DASHED);
        String best = null;
        int bestDistance = Math.max(2, leaf.length() / 3) + 1;
        for (String candidate : propertyNames(type)) {
            int distance = distance(leaf, candidate);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        if (best != null) {
            return parent + "." + best;
        }
        // A key of the whole server's, set for a part of it (a group's batch-size, say): the one key there is.
        return (name.getNumberOfElements() > 2 && propertyNames(SockstateProperties.class).contains(leaf)) ? "sockstate." + leaf : null;
    }

    private static boolean isMap(Type type) {
        return raw(type) != null && Map.class.isAssignableFrom(raw(type));
    }

    /** @return a map's value type or a collection's element type */
    private static @Nullable Type elementType(Type type) {
        if (type instanceof ParameterizedType parameterized) {
            Type[] arguments = parameterized.getActualTypeArguments();
            return arguments[arguments.length - 1];
        }
        return null;
    }

    private static @Nullable Type propertyType(Type type, String element) {
        Class<?> bean = raw(type);
        if (bean == null || !bean.getName().startsWith("dev.sockstate.")) {
            return null;
        }
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(bean)) {
            if (descriptor.getReadMethod() != null && kebab(descriptor.getName()).equals(element)) {
                return descriptor.getReadMethod().getGenericReturnType();
            }
        }
        return null;
    }

    private static Set<String> propertyNames(Type type) {
        Set<String> names = new TreeSet<>();
        Class<?> bean = raw(type);
        if (bean == null || !bean.getName().startsWith("dev.sockstate.")) {
            return names;
        }
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(bean)) {
            Class<?> property = descriptor.getPropertyType();
            boolean nested = property != null && (property.getName().startsWith("dev.sockstate.") && !property.isEnum()
                    || Map.class.isAssignableFrom(property) || Collection.class.isAssignableFrom(property));
            if (descriptor.getReadMethod() != null && !descriptor.getName().equals("class")
                    && (descriptor.getWriteMethod() != null || nested)) {
                names.add(kebab(descriptor.getName()));
            }
        }
        return names;
    }

    private static @Nullable Class<?> raw(Type type) {
        if (type instanceof Class<?> plain) {
            return plain;
        }
        return (type instanceof ParameterizedType parameterized) ? (Class<?>) parameterized.getRawType() : null;
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
    }

    /** @return the edit distance between the two names (insertions, deletions, substitutions) */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
