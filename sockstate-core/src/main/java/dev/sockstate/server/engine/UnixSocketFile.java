package dev.sockstate.server.engine;

import dev.sockstate.server.ListenerBindException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.ConnectException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The file of a listener's Unix domain socket: what is at its path before the bind (nothing; a
 * socket file a crashed server left, replaced; a server that still answers, or a file that is not a
 * socket, refused), its permissions after, its removal at the stop: of the file this listener's bind
 * made only, known by its identity (its device and inode, or where the system has none, its
 * creation time), so that a server that stops never removes the file of one that bound the path
 * since (a rolling restart on the same path, whose new instance binds while the old one drains).
 */
final class UnixSocketFile {

    /** The socket's path. */
    private final Path path;

    /** What tells the file the bind made from one made at the same path later: its key, or its creation time. */
    private final Object identity;

    private static final System.Logger logger = System.getLogger(UnixSocketFile.class.getName());

    /** {@code S_IFMT}: the bits of {@code st_mode} that tell a file's type. */
    private static final int S_IFMT = 0170000;

    /** {@code S_IFSOCK}: a socket. */
    private static final int S_IFSOCK = 0140000;

    /** The longest path a Unix domain socket may be bound at, in bytes: {@code sun_path} less its NUL. */
    private static final int MOST_PATH_BYTES = 107;

    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    private UnixSocketFile(Path path, Object identity) {
        this.path = path;
        this.identity = identity;
    }

    /**
     * @param path the path a socket was just bound to
     * @return the file the bind made there, to remove at the stop
     * @throws IOException when the file cannot be read
     */
    static UnixSocketFile made(Path path) throws IOException {
        return new UnixSocketFile(path, identity(Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)));
    }

    /**
     * Removes the file a bind made a moment ago whose attributes could not be read, logging a failure.
     * @param listener the listener's name
     * @param path the socket's path
     */
    static void removeJustBound(String listener, Path path) {
        try {
            Files.deleteIfExists(path);
        }
        catch (IOException ex) {
            logger.log(Level.WARNING, "The socket file " + path + " of listener '" + listener + "' could not be removed", ex);
        }
    }

    private static Object identity(BasicFileAttributes attributes) {
        return (attributes.fileKey() != null) ? attributes.fileKey() : attributes.creationTime();
    }

    /**
     * Removes the file the bind made, logging a failure, unless another is at its path now (a server
     * that bound it since: its file stays, said at INFO): the listener stopped, or failed to start.
     * @param listener the listener's name
     */
    void remove(String listener) {
        try {
            BasicFileAttributes now = Files.readAttributes(this.path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!identity(now).equals(this.identity)) {
                logger.log(Level.INFO, "The socket file " + this.path + " of listener '" + listener
                        + "' is left in place: another socket was bound at its path since (a server that took it over)");
                return;
            }
            Files.deleteIfExists(this.path);
        }
        catch (NoSuchFileException ex) {
            // Gone already.
        }
        catch (IOException ex) {
            logger.log(Level.WARNING, "The socket file " + this.path + " of listener '" + listener + "' could not be removed", ex);
        }
    }

    /**
     * Clears the path for the bind: nothing there is fine; a socket no server answers at (one that
     * crashed left it) is removed; a socket a server answers at, or a file of another kind, is refused.
     * Telling a live server costs it one connection, opened and closed at once.
     * @param listener the listener's name
     * @param path its socket's path
     * @throws ListenerBindException when something is in the way
     */
    static void clearStale(String listener, Path path) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        }
        catch (NoSuchFileException ex) {
            return;
        }
        catch (IOException ex) {
            throw refused(listener, path, "what is at its path cannot be read: " + ex, ex);
        }
        if (!isSocket(path, attributes)) {
            throw refused(listener, path, "a file that is not a socket is at its path; remove it or choose another path", null);
        }
        try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
            throw refused(listener, path, "a server answers at its path (a connection to it succeeded); stop it or choose"
                    + " another path", null);
        }
        catch (ConnectException ex) {
            // Refused: no one listens there, the file is a crashed server's.
        }
        catch (IOException ex) {
            throw refused(listener, path, "cannot tell whether a server answers at its path: " + ex, ex);
        }
        try {
            Files.deleteIfExists(path);
        }
        catch (IOException ex) {
            throw refused(listener, path, "the stale socket file at its path cannot be removed: " + ex, ex);
        }
        logger.log(Level.INFO, "The stale socket file " + path + ", at which no server answered, was replaced by listener '" + listener + "'");
    }

    /** @return whether the file is a socket: its mode says so where the system has modes; elsewhere, a file of no common kind */
    private static boolean isSocket(Path path, BasicFileAttributes attributes) {
        if (!attributes.isOther()) {
            return false;
        }
        try {
            return (((Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS)) & S_IFMT) == S_IFSOCK;
        }
        catch (UnsupportedOperationException | IllegalArgumentException | IOException ex) {
            // Windows has no modes: its AF_UNIX socket files are reparse points, which the JDK calls "other".
            return true;
        }
    }

    /**
     * A directory of this process's own (mode {@code rwx------}) beside the socket's path, to bind in
     * and set the file's permissions where no one else can reach it, before it is linked into place
     * ({@link #publish}): a socket bound at its path would serve with the umask's permissions until
     * they were set, and setting them by path follows a symbolic link someone put there meanwhile.
     * @param path the socket's path
     * @return where to bind instead, {@code null} when the system has no POSIX permissions or the
     * path there would be longer than a Unix domain socket's path may be (then the socket is bound
     * at its path and its permissions set after)
     * @throws IOException when the directory cannot be made
     */
    static @Nullable Path privateBindPath(Path path) throws IOException {
        Path parent = path.toAbsolutePath().getParent();
        if (parent == null) {
            return null;
        }
        for (int attempt = 0; attempt < 8; attempt++) {
            Path directory = parent.resolve(".sockstate-" + Long.toHexString(RANDOM.nextLong() & 0xffffffL));
            Path bindPath = directory.resolve("s");
            if (bindPath.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MOST_PATH_BYTES) {
                return null;
            }
            try {
                Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                return bindPath;
            }
            catch (UnsupportedOperationException ex) {
                return null;
            }
            catch (FileAlreadyExistsException ex) {
                // Another's name: draw again.
            }
        }
        throw new IOException("no private directory could be made beside " + path);
    }

    /**
     * Links the socket bound in the private directory into place, never over what is at its path
     * (a hard link is refused where any file is, and follows no symbolic link), then removes the
     * private name and directory.
     * @param bound where the socket was bound ({@link #privateBindPath})
     * @param path its path
     * @throws FileAlreadyExistsException when something was put at its path since it was cleared
     * @throws IOException when the link cannot be made
     */
    static void publish(Path bound, Path path) throws IOException {
        try {
            Files.createLink(path, bound);
        }
        finally {
            removePrivate(bound);
        }
    }

    /** @param bound a path {@link #privateBindPath} gave: it and its directory are removed, failures logged */
    static void removePrivate(Path bound) {
        try {
            Files.deleteIfExists(bound);
            Files.deleteIfExists(bound.getParent());
        }
        catch (IOException ex) {
            logger.log(Level.WARNING, "The private directory " + bound.getParent() + " a socket was bound in could not be removed", ex);
        }
    }

    /**
     * @param path a bound socket's path, or {@code null} for an IP listener (nothing to do)
     * @param permissions its permissions, {@code null} for those the umask gave
     * @throws IOException when they cannot be set
     */
    static void restrict(@Nullable Path path, @Nullable Set<PosixFilePermission> permissions) throws IOException {
        if (path == null || permissions == null) {
            return;
        }
        try {
            Files.setPosixFilePermissions(path, permissions);
        }
        catch (UnsupportedOperationException ex) {
            throw new IOException("this system's files have no POSIX permissions", ex);
        }
    }

    private static ListenerBindException refused(String listener, Path path, String reason, @Nullable Throwable cause) {
        return new ListenerBindException(listener, UnixDomainSocketAddress.of(path), reason, cause);
    }
}
