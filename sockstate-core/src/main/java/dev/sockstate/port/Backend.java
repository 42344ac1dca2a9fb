package dev.sockstate.port;

import java.util.List;

/**
 * One operating system's notification mechanism: a factory of ports and the native sockets they
 * register. Backends are found with {@link java.util.ServiceLoader} (see {@link Backends}); each
 * probes its availability once and keeps the cause of a failure.
 */
public interface Backend {

    /** @return the backend's name, as written in configuration: {@code epoll}, {@code winsock} */
    String name();

    /** @return whether this backend runs here, probed once; never throws */
    Availability availability();

    /** @return whether this is the operating system's own mechanism, the one {@code auto} picks */
    boolean isNativeToThisSystem();

    /**
     * @return a new, open port
     * @throws NativeIoException when the port could not be created
     * @throws BackendUnavailableException when the backend does not run here
     */
    NotificationPort openPort() throws NativeIoException;

    /**
     * @return the backend's sockets
     * @throws BackendUnavailableException when the backend does not run here
     */
    NativeSockets sockets();

    /**
     * @return whether an edge-triggered registration notifies on every arrival of data, even while earlier
     * data is unread (epoll does); when false, only the portable guarantee holds: an edge is raised by a
     * change after the registration was enabled, so a reader must read until would-block after each enable
     */
    default boolean edgeOnEveryArrival() {
        return false;
    }

    /**
     * @return whether a socket's pending error (a reset by the peer) is notified as {@link Events#ERR};
     * when false, the backend learns readiness only (a JDK selector does), so a reset shows as IN and
     * the read that follows names the error: code that learns
     * errors by reading, as the portable guarantee asks, behaves alike on both
     */
    default boolean notifiesErrors() {
        return true;
    }

    /**
     * @return whether a peer's FIN is notified as {@link Events#HANGUP} to a registration that asks for
     * IN too; when false (a JDK selector learns readiness only), it shows as IN, and the read that
     * returns the end of the stream tells it, and a registration for HANGUP without IN hears nothing of it
     */
    default boolean notifiesHangups() {
        return true;
    }

    /**
     * @return whether this backend runs on any system the JDK runs on (the JDK's selector does), the
     * one {@code auto} falls back to where no native backend runs
     */
    default boolean isPortable() {
        return false;
    }

    /**
     * @return whether a registration change deferred to the next dequeue call saves a system call: on
     * Windows one {@code ProcessSocketNotifications} call applies the changes and dequeues, so a
     * worker carries the re-arms of a batch in its next call; on epoll each change is one
     * {@code epoll_ctl} either way, so changes are applied at once, while their socket is owned
     */
    default boolean appliesChangesWithDequeue() {
        return false;
    }

    /**
     * The classes the backend binds to native code with JNA direct mapping ({@code Native.register}),
     * by name, for ahead-of-time tools: their native methods are reached through JNI and reflection.
     * Asking initializes none of them (nothing is bound).
     * @return the classes' binary names, empty for a backend without native bindings
     */
    default List<String> nativeBindings() {
        return List.of();
    }
}
