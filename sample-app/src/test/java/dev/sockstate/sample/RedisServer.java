package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} (Debian's package) on a free loopback port, with no persistence, for the
 * sample's {@code redis} client: one for the test run, started by the first test class that asks for it
 * and stopped when the JVM ends. Skipped without redis-server on a developer's machine, failed in CI
 * ({@link RealTools}).
 */
final class RedisServer {

    private static RedisServer shared;

    private final Process process;

    private final int port;

    private RedisServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** @return the test run's redis-server, started on first use, answering PING */
    static synchronized RedisServer shared() throws Exception {
        if (shared == null) {
            shared = start();
            Process process = shared.process;
            Runtime.getRuntime().addShutdownHook(new Thread(process::destroy));
        }
        return shared;
    }

    private static RedisServer start() throws Exception {
        String server = RealTools.require("redis-server", "redis-cli").get(0);
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        Path directory = Files.createTempDirectory("sockstate-redis");
        Process process = new ProcessBuilder(server, "--port", String.valueOf(port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", directory.toString()).redirectErrorStream(true)
                .redirectOutput(directory.resolve("redis.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!RealTools.output(null, "redis-cli", "-p", String.valueOf(port), "ping").equals("PONG")) {
            assertThat(System.nanoTime()).as("redis-server answering on port %d", port).isLessThan(deadline);
            Thread.sleep(50);
        }
        return new RedisServer(process, port);
    }

    /** @return its port */
    int port() {
        return this.port;
    }

    /** @return its address as the client's property takes it */
    String address() {
        return "127.0.0.1:" + this.port;
    }
}
