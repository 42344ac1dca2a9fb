package dev.sockstate.port;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/** Finds backends on the class path and selects one by name, or the system's own with {@code auto}. */
public final class Backends {

    /** The name that selects the operating system's own backend. */
    public static final String AUTO = "auto";

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
            throw new BackendUnavailableException(AUTO, "No socket notification backend runs on " + system()
                    + "; supported are Linux (epoll) and Windows build 20348 or later (winsock). " + reasons, null);
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

    /** @return the operating system, its version and architecture */
    public static String system() {
        return System.getProperty("os.name") + " " + System.getProperty("os.version") + " (" + System.getProperty("os.arch") + ")";
    }
}
