package dev.sockstate.autoconfigure;

import dev.sockstate.server.tls.TlsManagers;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/**
 * The SSL contexts of named bundles, each made once and made again when its bundle is reloaded
 * ({@code reload-on-update}): new connections get the new one, those open keep theirs.
 */
final class BundleSslContexts {

    private static final Log logger = LogFactory.getLog(BundleSslContexts.class);

    private final @Nullable SslBundles bundles;

    private final Map<String, Current> contexts = new ConcurrentHashMap<>();

    BundleSslContexts(@Nullable SslBundles bundles) {
        this.bundles = bundles;
    }

    /**
     * @param property the property that names the bundle, for the error
     * @param name the bundle's name
     * @return the bundle, which exists
     * @throws InvalidConfigurationPropertyValueException naming the property and the bundle when it does
     * not exist or cannot make an SSL context
     */
    SslBundle bundle(String property, String name) {
        if (this.bundles == null) {
            throw new InvalidConfigurationPropertyValueException(property, name,
                    "No SSL bundles are configured: Spring Boot's SslAutoConfiguration is not in the context.");
        }
        try {
            return this.bundles.getBundle(name);
        }
        catch (NoSuchSslBundleException ex) {
            throw new InvalidConfigurationPropertyValueException(property, name, "No SSL bundle named '" + name
                    + "' exists; define it under spring.ssl.bundle.pem." + name + " or spring.ssl.bundle.jks." + name + ".");
        }
    }

    /**
     * @param property the property that names the bundle, for the error
     * @param name the bundle's name
     * @return the bundle's current SSL context, made now (so that a bad key or store fails start-up)
     */
    Supplier<SSLContext> context(String property, String name) {
        return current(property, name)::context;
    }

    /**
     * @param property the property that names the bundle, for the error
     * @param name the bundle's name
     * @return the bundle's current key and trust managers, which a native TLS engine is made of: the
     *     same instance until the bundle is reloaded
     */
    Supplier<TlsManagers> managers(String property, String name) {
        return current(property, name)::managers;
    }

    private Current current(String property, String name) {
        return this.contexts.computeIfAbsent(name, (key) -> {
            Current current = new Current(property, name, bundle(property, name));
            this.bundles.addBundleUpdateHandler(name, current::update);
            return current;
        });
    }

    /** One bundle's context and managers, replaced together when the bundle is. */
    private static final class Current {

        private final String property;

        private final String name;

        private volatile Made made;

        Current(String property, String name, SslBundle bundle) {
            this.property = property;
            this.name = name;
            this.made = create(bundle);
        }

        private Made create(SslBundle bundle) {
            try {
                return new Made(bundle.createSslContext(), new TlsManagers(bundle.getManagers().getKeyManagerFactory(),
                        bundle.getManagers().getTrustManagerFactory()));
            }
            catch (RuntimeException ex) {
                throw new InvalidConfigurationPropertyValueException(this.property, this.name,
                        "SSL bundle '" + this.name + "' cannot make an SSL context: " + ex.getMessage());
            }
        }

        /** A reloaded bundle that cannot make a context leaves the one in use, saying why. */
        void update(SslBundle bundle) {
            try {
                this.made = create(bundle);
            }
            catch (InvalidConfigurationPropertyValueException ex) {
                logger.warn("Keeping the SSL context in use for " + this.property + ": " + ex.getReason());
            }
        }

        SSLContext context() {
            return this.made.context();
        }

        TlsManagers managers() {
            return this.made.managers();
        }
    }

    /** A context and the managers it was made of. */
    private record Made(SSLContext context, TlsManagers managers) {
    }
}
