package dev.sockstate.autoconfigure;

import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Setting;
import dev.sockstate.server.Setting.Scope;
import dev.sockstate.server.tls.Tls;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Maps properties onto the runtime's builders, one {@link PropertyMapper} line per setting, and keeps
 * where each setting the runtime checks came from: the line that maps it names its {@link Setting}
 * and its property, so that a refusal ({@link InvalidSettingException}) is reported against the
 * property (a Spring Boot failure analysis then names it) without a table beside the lines.
 */
final class SettingSources {

    static final String PREFIX = "sockstate.";

    private final PropertyMapper map = PropertyMapper.get();

    /** The property of each setting mapped, by owner and setting ({@link #key}). */
    private final Map<String, String> properties = new HashMap<>();

    /**
     * @param property the property, below {@code sockstate.}
     * @param names its application protocol names
     * @return them, checked as the runtime checks them
     * @throws InvalidConfigurationPropertyValueException naming the property and the name refused
     */
    static String[] applicationProtocols(String property, List<String> names) {
        try {
            return Tls.checkedApplicationProtocols(names.toArray(new String[0])).toArray(new String[0]);
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + property, names, ex.getMessage() + ".");
        }
    }

    /**
     * @param scope what the owner is
     * @param name its name
     * @param path its properties' path below {@code sockstate.}, with a trailing dot: {@code listeners.echo.}
     * @return the lines that map the owner's properties
     */
    Lines of(Scope scope, String name, String path) {
        return new Lines(scope, name, path);
    }

    /**
     * Reports a setting the runtime refused against the property it came from; a setting no line mapped
     * (the name, the handler, what a customizer set) against its owner's path.
     * @param refused the runtime's refusal
     * @return the same, in the words of {@code sockstate.*}, with the refusal as a suppressed exception
     */
    InvalidConfigurationPropertyValueException asProperty(InvalidSettingException refused) {
        String property = this.properties.get(key(refused.ownerScope(), refused.ownerName(), refused.setting()));
        if (property == null) {
            property = PREFIX + ownerPath(refused.ownerScope(), refused.ownerName());
        }
        InvalidConfigurationPropertyValueException translated = new InvalidConfigurationPropertyValueException(property,
                refused.value(), refused.reason());
        // Its cause is set (to none) by its constructor: the runtime's own words travel as a suppressed exception.
        translated.addSuppressed(refused);
        return translated;
    }

    /**
     * @param property the {@code ssl.provider} property, for the error
     * @param provider the engine it asks for
     * @throws InvalidConfigurationPropertyValueException naming the property and the cause when it asks for OpenSSL's
     *     engine and that does not load here
     */
    static void requireEngine(String property, Tls.Provider provider) {
        Throwable unavailable = (provider == Tls.Provider.OPENSSL) ? Tls.openSslUnavailability() : null;
        if (unavailable != null) {
            throw new InvalidConfigurationPropertyValueException(property, "openssl", "OpenSSL's TLS engine does not load here: "
                    + unavailable + ((unavailable.getCause() != null) ? " (" + unavailable.getCause() + ")" : "")
                    + ". Add io.netty:netty-handler and io.netty:netty-tcnative-boringssl-static, or choose jdk or auto.");
        }
    }

    /** @return where the properties of an owner are, below {@code sockstate.}, without a trailing dot */
    static String ownerPath(Scope scope, String name) {
        return switch (scope) {
            case LISTENER -> "listeners." + name;
            case CLIENT -> "clients." + name;
            case WORKER_GROUP -> ListenerSettings.DEFAULT_GROUP.equals(name) ? "workers" : "groups." + name;
        };
    }

    private static String key(Scope scope, String name, Setting setting) {
        return scope + "/" + name + "/" + setting.name();
    }

    /** The mapping lines of one listener, client or worker group. */
    final class Lines {

        private final Scope scope;

        private final String name;

        private final String path;

        private Lines(Scope scope, String name, String path) {
            this.scope = scope;
            this.name = name;
            this.path = path;
        }

        /** @return the owner's properties' path below {@code sockstate.}, with a trailing dot */
        String path() {
            return this.path;
        }

        /**
         * A line for a setting the runtime checks: its refusal names {@code property}.
         * @param setting the setting the line sets
         * @param property the property, below the owner's path
         * @param value the property's value
         * @return the line's source; a {@code null} value is not mapped
         */
        <T> PropertyMapper.Source<T> from(Setting setting, String property, Supplier<? extends @Nullable T> value) {
            named(setting, PREFIX + this.path + property);
            return SettingSources.this.map.from(value);
        }

        /**
         * A line for a setting the runtime takes as it is.
         * @param value the property's value
         * @return the line's source; a {@code null} value is not mapped
         */
        <T> PropertyMapper.Source<T> from(Supplier<? extends @Nullable T> value) {
            return SettingSources.this.map.from(value);
        }

        /**
         * For a setting set without a line of its own (a record made whole, a property shared by every owner).
         * @param setting the setting
         * @param property the whole property's name, {@code sockstate.} included
         */
        void named(Setting setting, String property) {
            SettingSources.this.properties.put(key(this.scope, this.name, setting), property);
        }
    }
}
