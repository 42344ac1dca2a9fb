package dev.sockstate.autoconfigure;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.util.unit.DataSize;

/**
 * Makes the reference's properties appendix: every key sockstate binds, with its default and its
 * description. The keys of their own come from the configuration metadata in the built jar, as an
 * IDE reads them; under the maps of listeners, clients and worker groups the metadata names only the
 * map, so those keys are the value types' properties, as an IDE resolves them, their defaults those
 * of a new value and their descriptions the fields' one-line javadoc in the sources.
 */
final class PropertiesAppendix {

    private static final Pattern MAP_TYPE = Pattern.compile("java\\.util\\.Map<java\\.lang\\.String,(.+)>");

    private static final Pattern JAVADOC = Pattern.compile("/\\*\\*(.*?)\\*/", Pattern.DOTALL);

    private static final Map<String, String> MAPS = new LinkedHashMap<>();

    static {
        MAPS.put("sockstate.listeners", "<name>");
        MAPS.put("sockstate.clients", "<name>");
        MAPS.put("sockstate.groups", "<group>");
    }

    private final Map<String, ConfigurationMetadataProperty> metadata;

    private final Path sources;

    /**
     * @param metadata the properties of the built jar's metadata, by key
     * @param sources the module's main sources, where the value types' javadoc is read
     */
    PropertiesAppendix(Map<String, ConfigurationMetadataProperty> metadata, Path sources) {
        this.metadata = metadata;
        this.sources = sources;
    }

    /** @return the page, Markdown */
    String page() throws IOException {
        StringBuilder page = new StringBuilder();
        page.append("# Appendix: properties\n\n");
        page.append("Every key sockstate binds, with its default and what it does. This page is made from the\n");
        page.append("configuration metadata and the properties' javadoc by the build, which fails when it differs from\n");
        page.append("them (`-Ddocs.write=true` on the autoconfigure module's integration tests writes it anew).\n");
        page.append("Durations take `ms`, `s`, `m`, `h` or `d` (`10s`), sizes `B`, `KB`, `MB` or `GB` (`64KB`); a key\n");
        page.append("that sockstate does not bind fails the start-up, naming the nearest valid one.\n");
        Map<String, Row> own = new TreeMap<>();
        for (ConfigurationMetadataProperty property : this.metadata.values()) {
            if (!MAPS.containsKey(property.getId()) && (property.getId().startsWith("sockstate.")
                    || property.getId().startsWith("management.endpoint.sockstate."))) {
                own.put(property.getId(), new Row(property.getId(), text(property.getDefaultValue()), property.getDescription()));
            }
        }
        section(page, "The server", "Keys of the whole server: the backend, the default worker group, the shutdown.",
                own.values().stream().filter((row) -> row.key.startsWith("sockstate.")).toList());
        for (Map.Entry<String, String> map : MAPS.entrySet()) {
            String prefix = map.getKey() + "." + map.getValue();
            List<Row> rows = new ArrayList<>();
            valueRows(mapValueType(map.getKey()), prefix, rows);
            section(page, title(map.getKey()), "Under `" + prefix + "`: " + this.metadata.get(map.getKey()).getDescription(), rows);
        }
        section(page, "The Actuator endpoint", "The `sockstate` endpoint's keys, as every endpoint has them.",
                own.values().stream().filter((row) -> row.key.startsWith("management.")).toList());
        return page.toString();
    }

    private static String title(String map) {
        return switch (map) {
            case "sockstate.listeners" -> "Listeners";
            case "sockstate.clients" -> "Clients";
            default -> "Worker groups";
        };
    }

    private static void section(StringBuilder page, String title, String intro, List<Row> rows) {
        page.append("\n## ").append(title).append("\n\n").append(intro).append("\n\n");
        page.append("| key | default | description |\n|---|---|---|\n");
        for (Row row : rows) {
            page.append("| `").append(row.key).append("` | ").append(row.defaultValue.isEmpty() ? "" : "`" + row.defaultValue + "`")
                    .append(" | ").append(row.description.replace("|", "\\|")).append(" |\n");
        }
    }

    /** Adds a row for every value a binder sets on {@code type}, below {@code prefix}, in the fields' order. */
    private void valueRows(Class<?> type, String prefix, List<Row> rows) throws IOException {
        Object defaults = BeanUtils.instantiateClass(type);
        for (String field : fields(type)) {
            PropertyDescriptor descriptor = BeanUtils.getPropertyDescriptor(type, field);
            if (descriptor == null || descriptor.getReadMethod() == null) {
                continue;
            }
            String key = prefix + "." + kebab(field);
            if (descriptor.getWriteMethod() == null && descriptor.getPropertyType().getName().startsWith("dev.sockstate.")) {
                valueRows(descriptor.getPropertyType(), key, rows);
            }
            else if (descriptor.getWriteMethod() != null) {
                Object value = invoke(descriptor, defaults);
                rows.add(new Row(key, text(value), javadoc(type, field)));
                Class<?> element = elementType(descriptor);
                if (element != null && element.getName().startsWith("dev.sockstate.") && !element.isEnum()) {
                    // A list of values with keys of their own: each element's keys, by index.
                    valueRows(element, key + "[n]", rows);
                }
            }
        }
    }

    /** @return the element type of a collection property, or {@code null} */
    private static Class<?> elementType(PropertyDescriptor descriptor) {
        if (Collection.class.isAssignableFrom(descriptor.getPropertyType())
                && descriptor.getReadMethod().getGenericReturnType() instanceof ParameterizedType collection
                && collection.getActualTypeArguments()[0] instanceof Class<?> element) {
            return element;
        }
        return null;
    }

    /** @return the instance fields of the type and its superclasses, those of the superclasses first, each in source order */
    private static List<String> fields(Class<?> type) {
        List<String> fields = new ArrayList<>();
        if (type.getSuperclass() != null && type.getSuperclass() != Object.class) {
            fields.addAll(fields(type.getSuperclass()));
        }
        for (java.lang.reflect.Field field : type.getDeclaredFields()) {
            if (!Modifier.isStatic(field.getModifiers())) {
                fields.add(field.getName());
            }
        }
        return fields;
    }

    private static Object invoke(PropertyDescriptor descriptor, Object target) {
        try {
            return descriptor.getReadMethod().invoke(target);
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** @return the javadoc of the field in the class that declares it, one line */
    private String javadoc(Class<?> type, String field) throws IOException {
        Class<?> declaring = type;
        while (declaring != null && !declares(declaring, field)) {
            declaring = declaring.getSuperclass();
        }
        if (declaring == null) {
            throw new IllegalStateException("no field " + field + " in " + type.getName());
        }
        Class<?> topLevel = declaring;
        while (topLevel.getEnclosingClass() != null) {
            topLevel = topLevel.getEnclosingClass();
        }
        String source = Files.readString(this.sources.resolve(topLevel.getName().replace('.', '/') + ".java"));
        int body = source.indexOf("class " + declaring.getSimpleName() + " ");
        Matcher declaration = Pattern.compile("\\n\\s*private (final )?[\\w.<>,@ ]+ " + field + "( =[^;]*)?;").matcher(source);
        if (body < 0 || !declaration.find(body)) {
            throw new IllegalStateException("no declaration of " + field + " in " + declaring.getName() + "'s source");
        }
        String before = source.substring(body, declaration.start());
        int comment = before.lastIndexOf("/**");
        Matcher doc = JAVADOC.matcher(before);
        if (comment < 0 || !doc.find(comment) || !before.substring(doc.end()).replaceAll("@\\w+(\\([^)]*\\))?", "").isBlank()) {
            throw new IllegalStateException("no javadoc on " + declaring.getName() + "." + field);
        }
        return doc.group(1).replaceAll("\\s*\\n\\s*\\*?\\s*", " ").replaceAll("\\{@code ([^}]*)}", "$1")
                .replaceAll("\\{@link ([^}]*)}", "$1").strip();
    }

    private static boolean declares(Class<?> type, String field) {
        try {
            type.getDeclaredField(field);
            return true;
        }
        catch (NoSuchFieldException ex) {
            return false;
        }
    }

    private Class<?> mapValueType(String name) {
        Matcher matcher = MAP_TYPE.matcher(this.metadata.get(name).getType());
        if (!matcher.matches()) {
            throw new IllegalStateException(name + " is not a map: " + this.metadata.get(name).getType());
        }
        try {
            return Class.forName(matcher.group(1).replace("dev.sockstate.autoconfigure.SockstateProperties.Workers",
                    "dev.sockstate.autoconfigure.SockstateProperties$Workers"));
        }
        catch (ClassNotFoundException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** @return a default as it is written in a property: {@code 10s}, {@code 64KB}, {@code level-oneshot} */
    private static String text(Object value) {
        if (value == null) {
            return "";
        }
        if (value instanceof Duration duration) {
            if (duration.isZero()) {
                return "0s";
            }
            long millis = duration.toMillis();
            return (millis % 1000 != 0) ? millis + "ms" : (millis % 60_000 != 0) ? millis / 1000 + "s" : millis / 60_000 + "m";
        }
        if (value instanceof DataSize size) {
            long bytes = size.toBytes();
            return (bytes != 0 && bytes % (1024 * 1024) == 0) ? bytes / (1024 * 1024) + "MB"
                    : (bytes != 0 && bytes % 1024 == 0) ? bytes / 1024 + "KB" : bytes + "B";
        }
        if (value instanceof Enum<?> constant) {
            return constant.name().toLowerCase().replace('_', '-');
        }
        if (value instanceof Charset charset) {
            return charset.name();
        }
        if (value instanceof Collection<?> values) {
            return String.join(", ", values.stream().map(PropertiesAppendix::text).toList());
        }
        return value.toString();
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
    }

    private record Row(String key, String defaultValue, String description) {
    }
}
