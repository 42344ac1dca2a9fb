package dev.sockstate.port;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Loads sockstate's classes, the tests' and JNA itself, not from the test's class loader, and notes
 * each class it loads: a backend run in it (through {@link ServeOnce}) shows which classes it needs,
 * JNA's among them or not (JNA loads its native library when its {@code Native} class initialises).
 */
public final class RecordingClassLoader extends URLClassLoader {

    private final Set<String> loaded = ConcurrentHashMap.newKeySet();

    /** @throws ClassNotFoundException when JNA is not on the test's class path */
    public RecordingClassLoader() throws ClassNotFoundException {
        super("recording", new URL[] { location(Backends.class), location(RecordingClassLoader.class),
                location(Class.forName("com.sun.jna.Native", false, RecordingClassLoader.class.getClassLoader())) },
                ClassLoader.getPlatformClassLoader());
    }

    private static URL location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }

    /** @param backend its name @return what {@link ServeOnce} answered, run in this loader on that backend */
    @SuppressWarnings("unchecked")
    public String serveOnce(String backend) throws ReflectiveOperationException {
        return ((Function<String, String>) loadClass(ServeOnce.class.getName()).getDeclaredConstructor().newInstance())
                .apply(backend);
    }

    /** @return the names of the classes this loader loaded so far */
    public Set<String> loaded() {
        return Set.copyOf(this.loaded);
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        Class<?> found = super.findClass(name);
        this.loaded.add(name);
        return found;
    }
}
