package dev.sockstate.benchmarks.e2e;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * One echo server in a process of its own, so that its CPU time and memory can be read from
 * {@code /proc}: {@code ServerMain <server> <workers>} prints {@code PORT <n>} once listening, answers
 * {@code gc} on its standard input with {@code OK <heap> <native>} after a full collection (the
 * heap in use, and direct buffers plus what the server allocates natively beside them, in bytes),
 * and stops when its input closes or says {@code stop}.
 */
public final class ServerMain {

    private ServerMain() {
    }

    /**
     * @param args the server's name ({@link ServerKind}) and the worker count
     * @throws Exception when the server cannot start
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: ServerMain <sockstate|sockstate-oneshot|sockstate-exclusive|sockstate-affine|sockstate-nio|netty-epoll|jdk-nio> <workers>");
            System.exit(2);
        }
        ServerKind kind = ServerKind.parse(args[0]);
        try (EchoServer server = kind.create()) {
            int port = server.start(Integer.parseInt(args[1]));
            String backend = server.backend();
            if (backend != null) {
                System.out.println("BACKEND " + backend);
            }
            System.out.println("PORT " + port);
            System.out.flush();
            BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
            String command;
            while ((command = commands.readLine()) != null && !command.equals("stop")) {
                if (command.equals("gc")) {
                    System.gc();
                    Thread.sleep(200);
                    System.gc();
                    long heap = java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                    long direct = java.lang.management.ManagementFactory
                            .getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class).stream()
                            .filter((pool) -> pool.getName().equals("direct")).mapToLong(
                                    java.lang.management.BufferPoolMXBean::getMemoryUsed).sum();
                    System.out.println("OK " + heap + " " + (direct + server.untrackedNativeBytes()));
                    System.out.flush();
                }
            }
        }
        System.exit(0);
    }
}
