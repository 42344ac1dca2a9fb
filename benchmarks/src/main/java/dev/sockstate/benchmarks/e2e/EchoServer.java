package dev.sockstate.benchmarks.e2e;

/**
 * An echo server of the comparison, listening on loopback with a given number of worker threads. With
 * {@code -Dbenchmark.framing=line} (the harness's {@code --framing line}) every server frames lines:
 * each LF-terminated line is found, and echoed as a line.
 */
interface EchoServer extends AutoCloseable {

    /** @return whether the servers frame lines instead of echoing raw reads */
    static boolean linesFramed() {
        return "line".equals(System.getProperty("benchmark.framing", "none"));
    }

    /**
     * Binds an ephemeral loopback port and starts serving.
     * @param workers the threads that serve connections (accepting included)
     * @return the bound port
     * @throws Exception when the server cannot start
     */
    int start(int workers) throws Exception;

    /**
     * @return native memory the server allocated that the JVM's {@code direct} buffer pool does not
     * count (Netty's own direct allocations), in bytes
     */
    default long untrackedNativeBytes() {
        return 0;
    }

    /**
     * @return the socket notification backend the server runs on and what its probe found (for
     * sockstate's epoll backend, the binding of libc), or {@code null} for a server that is not sockstate's
     */
    default String backend() {
        return null;
    }

    @Override
    void close() throws Exception;
}
