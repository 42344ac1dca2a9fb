package dev.sockstate.benchmarks.e2e;

/** An echo server of the comparison, listening on loopback with a given number of worker threads. */
interface EchoServer extends AutoCloseable {

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

    @Override
    void close() throws Exception;
}
