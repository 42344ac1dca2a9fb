package dev.sockstate.autoconfigure;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * A listener's {@code address} property read: an IP address or host name, or {@code unix:} and the
 * path of a Unix domain socket.
 *
 * @param ip the IP address, {@code null} for every interface or a Unix domain socket
 * @param unixPath the Unix domain socket's path, {@code null} for an IP listener
 */
record ListenerAddress(@Nullable InetAddress ip, @Nullable Path unixPath) {

    /** What starts an address that is a Unix domain socket's path. */
    static final String UNIX_PREFIX = "unix:";

    /**
     * @param property the property's full name, for errors
     * @param value its value, {@code null} when not set
     * @return the address
     * @throws InvalidConfigurationPropertyValueException naming the property when it is neither
     */
    static ListenerAddress of(String property, @Nullable String value) {
        if (value == null || value.isBlank()) {
            return new ListenerAddress(null, null);
        }
        if (value.startsWith(UNIX_PREFIX)) {
            String path = value.substring(UNIX_PREFIX.length());
            if (path.isBlank()) {
                throw new InvalidConfigurationPropertyValueException(property, value,
                        "A Unix domain socket's address is unix: and the path of its file, such as unix:/run/app/echo.sock.");
            }
            try {
                return new ListenerAddress(null, Path.of(path));
            }
            catch (InvalidPathException ex) {
                throw new InvalidConfigurationPropertyValueException(property, value, "It is no path on this system: "
                        + ex.getMessage() + ".");
            }
        }
        try {
            return new ListenerAddress(InetAddress.getByName(value), null);
        }
        catch (UnknownHostException ex) {
            throw new InvalidConfigurationPropertyValueException(property, value, "It must be an IP address or a host name of"
                    + " this machine, or unix: and the path of a Unix domain socket's file.");
        }
    }

    /** @return whether it is a Unix domain socket's */
    boolean isUnix() {
        return this.unixPath != null;
    }
}
