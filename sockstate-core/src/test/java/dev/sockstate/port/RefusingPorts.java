package dev.sockstate.port;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports that refuse a connect, for the tests of clients whose backend is down: a port
 * nothing listens on (bound a moment, then let go) below the system's ephemeral range. A free port
 * in that range will not do: a connect to it may be given that very port as its own and connect to
 * itself, which a test then sees as a backend that answered.
 */
public final class RefusingPorts {

    private RefusingPorts() {
    }

    /** @return a loopback port nothing listens on, outside the ephemeral range */
    public static int unused() throws IOException {
        int below = ephemeralPortsFrom();
        for (int port = below - 1 - ThreadLocalRandom.current().nextInt(Math.max(1, (below - 10_000) / 4)); port > 1024; port--) {
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return socket.getLocalPort();
            }
            catch (IOException taken) {
                // the next one down
            }
        }
        throw new IOException("No free loopback port below " + below);
    }

    /** @return the first port of the system's ephemeral range (Linux's ip_local_port_range), 32768 where it is not told */
    private static int ephemeralPortsFrom() {
        try {
            // Read by lines: a read that trusts the size this file reports (none) may stop after its first byte.
            String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim();
            return Integer.parseInt(range.split("\\s+")[0]);
        }
        catch (IOException | RuntimeException ex) {
            return 32768;
        }
    }
}
