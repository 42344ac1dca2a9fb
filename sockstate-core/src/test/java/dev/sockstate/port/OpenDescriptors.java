package dev.sockstate.port;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The sockets, epoll instances and eventfds this process holds, read from {@code /proc/self/fd}.
 * Where there is no {@code /proc/self/fd} (Windows), nothing is counted.
 */
public final class OpenDescriptors {

    private static final Path DESCRIPTORS = Path.of("/proc/self/fd");

    private OpenDescriptors() {
    }

    /** @return the targets of every socket and anonymous-inode descriptor, such as {@code socket:[123]} */
    public static List<String> networkDescriptors() {
        List<String> found = new ArrayList<>();
        if (!Files.isDirectory(DESCRIPTORS)) {
            return found;
        }
        try (Stream<Path> fds = Files.list(DESCRIPTORS)) {
            fds.forEach((fd) -> {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:") || target.startsWith("anon_inode:")) {
                        found.add(fd.getFileName() + " -> " + target);
                    }
                }
                catch (IOException ex) {
                    // closed while listing
                }
            });
        }
        catch (IOException ex) {
            throw new IllegalStateException("Cannot list /proc/self/fd", ex);
        }
        return found;
    }

    /**
     * Opens and closes a JDK TCP connection and a datagram socket once, so that descriptors the JDK
     * keeps for the life of the process (it opens one on first use) are counted in a baseline.
     * @throws IOException when loopback does not work
     */
    public static void warmUpJdkSockets() throws IOException {
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                java.net.Socket client = new java.net.Socket(server.getInetAddress(), server.getLocalPort());
                java.net.Socket accepted = server.accept();
                java.net.DatagramSocket datagram = new java.net.DatagramSocket(0, java.net.InetAddress.getLoopbackAddress())) {
            client.setTcpNoDelay(true);
            accepted.setTcpNoDelay(true);
        }
    }

    /** @return how many socket and anonymous-inode descriptors are open */
    public static int count() {
        return networkDescriptors().size();
    }
}
