package dev.sockstate.server;

import dev.sockstate.port.SocketAddressLayout;
import dev.sockstate.server.proxy.ProxyProtocol;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** Checks the Unix domain socket settings of a {@link ListenerSettings.Builder}. */
final class UnixSocketCheck {

    private UnixSocketCheck() {
    }

    /**
     * @param listener the listener's name
     * @param path its Unix socket's path, {@code null} for an IP listener
     * @param permissions the file's permissions as {@code ls -l} shows them, {@code null} for the umask's
     * @param ipAddressSet whether an IP address or a port number is set too
     * @param reusePort whether SO_REUSEPORT is asked for
     * @param perWorker whether a listening socket per worker is asked for
     * @param proxyProtocol the PROXY protocol, {@code null} for none
     * @return the permissions, {@code null} for the umask's
     * @throws InvalidSettingException naming the listener and the setting
     */
    static @Nullable Set<PosixFilePermission> permissions(String listener, @Nullable Path path, @Nullable String permissions,
            boolean ipAddressSet, boolean reusePort, boolean perWorker, @Nullable ProxyProtocol proxyProtocol) {
        if (path == null) {
            require(permissions == null, listener, Setting.UNIX_PERMISSIONS, permissions, "unset without a unixPath");
            return null;
        }
        require(!path.toString().isEmpty(), listener, Setting.UNIX_PATH, "empty", "a file's path");
        require(!ipAddressSet, listener, Setting.UNIX_PATH, path,
                "unset with an address or a port number (a listener binds either a Unix domain socket or an IP address and port)");
        require(!reusePort, listener, Setting.UNIX_PATH, path, "unset with reusePort (SO_REUSEPORT is for IP ports)");
        List<String> trusted = (proxyProtocol != null) ? proxyProtocol.trustedProxies() : List.of();
        require(trusted.isEmpty(), listener, Setting.PROXY_PROTOCOL, "trusting " + trusted, "without trusted proxies"
                + " on a Unix domain socket: its peers have no IP address to trust, every one is trusted (the file's permissions say who"
                + " connects)");
        require(!perWorker, listener, Setting.ACCEPT, AcceptMode.PER_WORKER, "SHARED for a Unix domain socket (one path is one"
                + " listening socket: the kernel spreads no connections over several)");
        try {
            SocketAddressLayout.pathBytes(UnixDomainSocketAddress.of(path));
        }
        catch (IllegalArgumentException ex) {
            throw InvalidSettingException.mustBe(listener, Setting.UNIX_PATH, path,
                    "a path of at most " + (SocketAddressLayout.UNIX_PATH_MAX - 1) + " bytes (the room sockaddr_un has)");
        }
        if (permissions == null) {
            return null;
        }
        try {
            return PosixFilePermissions.fromString(permissions);
        }
        catch (IllegalArgumentException ex) {
            throw InvalidSettingException.mustBe(listener, Setting.UNIX_PERMISSIONS, permissions,
                    "nine characters as ls -l shows them, such as rw-rw----");
        }
    }

    private static void require(boolean valid, String listener, Setting setting, @Nullable Object value, String expected) {
        if (!valid) {
            throw InvalidSettingException.mustBe(listener, setting, value, expected);
        }
    }
}
