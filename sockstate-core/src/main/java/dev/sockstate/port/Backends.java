package dev.sockstate.port;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Finds backends on the class path and selects one by name, or with {@code auto} the system's own,
 * falling back, with one warning that says why, to the portable backend where no native one runs.
 */
public final class Backends {

    /** The name that selects the operating system's own backend, or, where none runs, the portable one. */
    public static final String AUTO = "auto";

    private static final System.Logger logger = System.getLogger(Backends.class.getName());

    /** The fallback warnings logged so far: each once per process. */
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    private Backends() {
    }

    /** @return every backend on the class path, available or not */
    public static List<Backend> all() {
        List<Backend> backends = new ArrayList<>();
        ServiceLoader.load(Backend.class, Backends.class.getClassLoader()).forEach(backends::add);
        return backends;
    }

    /**
     * Selects a backend.
     * @param name {@code auto}, or a backend's name
     * @return an available backend
     * @throws IllegalArgumentException when no backend has that name
     * @throws BackendUnavailableException when the backend cannot run here, with the reason
     */
    public static Backend select(String name) {
        return select(name, all());
    }

    static Backend select(String name, List<Backend> backends) {
        String wanted = name.trim().toLowerCase(Locale.ROOT);
        if (AUTO.equals(wanted)) {
            for (Backend backend : backends) {
                if (backend.isNativeToThisSystem() && backend.availability().available()) {
                    return backend;
                }
            }
            String reasons = backends.stream().map((backend) -> backend.name() + ": " + backend.availability().reason())
                    .collect(Collectors.joining("; "));
            for (Backend backend : backends) {
                if (backend.isPortable() && backend.availability().available()) {
                    warnOnce(fallbackWarning(backend, backends));
                    return backend;
                }
            }
            throw new BackendUnavailableException(AUTO, "No socket notification backend runs on " + system()
                    + "; supported are Linux (epoll), Windows build 20348 or later (winsock), and any system with the"
                    + " portable nio backend. " + reasons, null);
        }
        for (Backend backend : backends) {
            if (backend.name().equals(wanted)) {
                Availability availability = backend.availability();
                if (!availability.available()) {
                    throw new BackendUnavailableException(backend.name(), "The " + backend.name()
                            + " backend cannot run on " + system() + ": " + availability.reason(), availability.cause());
                }
                return backend;
            }
        }
        throw new IllegalArgumentException("Unknown backend '" + name + "'; use " + AUTO + " or one of "
                + backends.stream().map(Backend::name).collect(Collectors.toList()));
    }

    /**
     * @return why {@code auto} falls back to the portable backend: the native backends' probed causes,
     * and how to choose a backend explicitly
     */
    private static String fallbackWarning(Backend portable, List<Backend> backends) {
        // The system's own backend, whose probe failed, says why; where none is the system's own, each says why not.
        boolean ownKnown = backends.stream().anyMatch(Backend::isNativeToThisSystem);
        String natives = backends.stream().filter((backend) -> !backend.isPortable() && (!ownKnown || backend.isNativeToThisSystem()))
                .map(Backends::reasonWithCause).collect(Collectors.joining("; "));
        return "No native socket notification backend runs on " + system() + " (" + natives + "); using the portable "
                + portable.name() + " backend (" + portable.availability().reason() + "). Choose a backend explicitly to"
                + " silence this: sockstate.backend=" + portable.name() + " (Backends.select(\"" + portable.name()
                + "\") without Spring), or fix the native backend's cause";
    }

    /** @return the backend's name and why it does not run, with its cause unless the reason names it already */
    private static String reasonWithCause(Backend backend) {
        Availability availability = backend.availability();
        Throwable cause = availability.cause();
        boolean named = cause == null || availability.reason().contains(String.valueOf(cause.getMessage()));
        return backend.name() + ": " + availability.reason() + (named ? "" : " (" + cause + ")");
    }

    /** Logs a warning once per process: the same choice is made by every caller that asks. */
    private static void warnOnce(String warning) {
        if (WARNED.add(warning)) {
            logger.log(Level.WARNING, warning);
        }
    }

    /** @return the operating system, its version and architecture */
    public static String system() {
        return System.getProperty("os.name") + " " + System.getProperty("os.version") + " (" + System.getProperty("os.arch") + ")";
    }
}
