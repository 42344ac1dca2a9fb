package dev.sockstate.port;

import org.jspecify.annotations.Nullable;

/**
 * Whether a backend can run on this machine, and if not, why.
 * @param available whether the backend works here
 * @param reason why not, or a short description of what was found
 * @param cause the failure behind the reason, or {@code null}
 */
public record Availability(boolean available, String reason, @Nullable Throwable cause) {

    /**
     * @param description what was found, such as {@code Linux 6.1 with epoll}
     * @return an available result
     */
    public static Availability available(String description) {
        return new Availability(true, description, null);
    }

    /**
     * @param reason why the backend cannot run
     * @param cause what failed, or {@code null}
     * @return an unavailable result
     */
    public static Availability unavailable(String reason, @Nullable Throwable cause) {
        return new Availability(false, reason, cause);
    }
}
